import XCTest
@testable import EssentialFeedNetwork

/// The deflate coding's format is told from its first two bytes, in
/// whatever pieces the body arrives: zlib-wrapped and raw deflate decode
/// alike in one piece and one byte at a time.
final class InflaterTests: XCTestCase {
    private let payload = Array((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 5) })

    private func decoded(_ body: [UInt8], _ coding: Inflater.Coding, pieces size: Int) throws -> [UInt8] {
        let inflater = Inflater(coding)
        var out: [UInt8] = []
        var start = 0
        while start < body.count {
            let end = min(start + size, body.count)
            let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: end - start, alignment: 1)
            defer { piece.deallocate() }
            piece.copyBytes(from: body[start..<end])
            try inflater.decode(UnsafeRawBufferPointer(piece)) { out += $0 }
            start = end
        }
        try inflater.finish()
        return out
    }

    func test_deflate_zlibAndRaw_decodeInOnePieceAndByteByByte() throws {
        for format in [Compression.Format.zlib, .raw] {
            let body = Compression.compress(payload, format)
            for size in [body.count, 1, 2, 3, 7] {
                XCTAssertEqual(try decoded(body, .deflate, pieces: size), payload, "\(format), pieces of \(size)")
            }
        }
        XCTAssertEqual(try decoded(Compression.compress(payload, .gzip), .gzip, pieces: 1), payload)
    }

    /// A gzip body of members one after another (RFC 1952; gzip(1) reads
    /// them all) is decoded whole, in whatever pieces it comes: once, the
    /// first member alone came out, a short body taken for the whole.
    func test_gzip_ofSeveralMembers_decodesEveryMember_inAnyPieces() throws {
        let first = Array(payload.prefix(7_000)), second = Array(payload.dropFirst(7_000))
        let body = Compression.compress(first, .gzip) + Compression.compress(second, .gzip) + Compression.compress([], .gzip)
        for size in [body.count, 1, 2, 3, 7, 4_096] {
            XCTAssertEqual(try decoded(body, .gzip, pieces: size), payload, "pieces of \(size)")
        }
        // Many small members, in one piece: a loop, not a call per member.
        let small = Compression.compress(Array("x".utf8), .gzip)
        let many = Array(Array(repeating: small, count: 20_000).joined())
        XCTAssertEqual(try decoded(many, .gzip, pieces: many.count), Array(repeating: UInt8(ascii: "x"), count: 20_000))
    }

    func test_gzip_bytesAfterTheLastMemberThatStartNoMember_areIgnored_butAMemberCutShortIsNot() throws {
        let body = Compression.compress(payload, .gzip)
        for tail in [[0x00], [0x1F], Array("JUNK".utf8), [0x1F, 0x8C, 0x08]] as [[UInt8]] {
            for size in [1, 3, body.count + tail.count] {
                XCTAssertEqual(try decoded(body + tail, .gzip, pieces: size), payload, "tail \(tail), pieces of \(size)")
            }
        }
        let cut = Array(Compression.compress(payload, .gzip).prefix(50))
        for size in [1, 7, body.count + cut.count] {
            XCTAssertThrowsError(try decoded(body + cut, .gzip, pieces: size), "a second member cut short, pieces of \(size)")
        }
        XCTAssertThrowsError(try decoded(body + [0x1F, 0x8B], .gzip, pieces: 1), "a second member's magic alone")
    }

    func test_deflate_cutAfterItsFirstByte_isCutShort() {
        let body = Compression.compress(payload, .raw)
        XCTAssertThrowsError(try decoded(Array(body.prefix(1)), .deflate, pieces: 1))
        XCTAssertThrowsError(try decoded(Array(body.prefix(body.count / 2)), .deflate, pieces: 3))
    }
}
