import EssentialFeed
import XCTest

final class Base64Tests: XCTestCase {
    /// The fast encoder against a plain one (RFC 4648's table, a bit at a
    /// time), for every length up to 300 and every tail length, and every
    /// length around a full block of output (3,072 bytes make 4 KiB).
    func test_append_writesWhatAPlainEncoderWrites_andDecodesBack() {
        var generator = SystemRandomNumberGenerator()
        for count in Array(0...300) + Array(3_050...3_100) {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var out: [UInt8] = Array("prefix".utf8)
            Base64.append(bytes, to: &out)
            XCTAssertEqual(out, Array("prefix".utf8) + Self.plain(bytes), "\(count) bytes")
            XCTAssertEqual(Base64.decode(Array(out.dropFirst(6))), bytes)
            // From raw bytes (a spooled body's pieces), into an array with room to spare.
            var roomy: [UInt8] = Array("prefix".utf8)
            roomy.reserveCapacity(count * 2 + 64)
            bytes.withUnsafeBytes { Base64.append($0, to: &roomy) }
            XCTAssertEqual(roomy, out, "\(count) bytes, raw")
        }
    }

    func test_memberBase64_isTheQuotedEncodingUnderItsKey() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("a", 1)
        writer.memberBase64("body_base64", Array("fo".utf8))
        writer.endObject()
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), #"{"a":1,"body_base64":"Zm8="}"#)
    }

    private static func plain(_ bytes: [UInt8]) -> [UInt8] {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let bits = bytes.flatMap { byte in (0..<8).map { (byte >> (7 - $0)) & 1 } }
        var out: [UInt8] = []
        var index = 0
        while index < bits.count {
            let group = (0..<6).map { index + $0 < bits.count ? bits[index + $0] : 0 }
            out.append(table[Int(group.reduce(0) { $0 << 1 | $1 })])
            index += 6
        }
        while out.count % 4 != 0 { out.append(UInt8(ascii: "=")) }
        return out
    }
}
