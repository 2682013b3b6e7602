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

    func test_deflate_cutAfterItsFirstByte_isCutShort() {
        let body = Compression.compress(payload, .raw)
        XCTAssertThrowsError(try decoded(Array(body.prefix(1)), .deflate, pieces: 1))
        XCTAssertThrowsError(try decoded(Array(body.prefix(body.count / 2)), .deflate, pieces: 3))
    }
}
