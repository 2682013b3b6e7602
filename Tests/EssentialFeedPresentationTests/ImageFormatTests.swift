import EssentialFeedPresentation
import XCTest

/// The size and type of image data, from its header only.
final class ImageFormatTests: XCTestCase {
    func test_sniff_readsPNGFromItsHeader() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 2, 0x80, 0, 0, 1, 0xE0, 8, 2, 0, 0, 0]
        XCTAssertEqual(ImageFormat.sniff(png), ImageFormat(mediaType: "image/png", width: 640, height: 480))
    }

    func test_sniff_readsJPEGFromItsFirstFrame_pastOtherSegmentsAndFillBytes() {
        let app0: [UInt8] = [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let dht: [UInt8] = [0xFF, 0xC4, 0, 4, 0, 0]  // not a frame, though in the range
        let sof2: [UInt8] = [0xFF, 0xFF, 0xC2, 0, 11, 8, 0x01, 0x2C, 0x03, 0x20, 1, 1, 0x11, 0]
        XCTAssertEqual(ImageFormat.sniff([0xFF, 0xD8] + app0 + dht + sof2), ImageFormat(mediaType: "image/jpeg", width: 800, height: 300))
    }

    func test_sniff_readsGIFsLogicalScreen() {
        XCTAssertEqual(ImageFormat.sniff(Array("GIF89a".utf8) + [0x2C, 0x01, 0x64, 0x00, 0, 0, 0]), ImageFormat(mediaType: "image/gif", width: 300, height: 100))
    }

    func test_sniff_readsWebPInItsThreeForms() {
        func riff(_ chunk: String, _ body: [UInt8]) -> [UInt8] {
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array(chunk.utf8) + [0, 0, 0, 0] + body + [UInt8](repeating: 0, count: 16)
        }
        let lossy = riff("VP8 ", [0, 0, 0, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01])
        XCTAssertEqual(ImageFormat.sniff(lossy), ImageFormat(mediaType: "image/webp", width: 640, height: 480))
        // 14 bits each, minus one: 639 = 0x27F, 479 = 0x1DF.
        let bits = 639 | 479 << 14
        let lossless = riff("VP8L", [0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24 & 0xFF)])
        XCTAssertEqual(ImageFormat.sniff(lossless), ImageFormat(mediaType: "image/webp", width: 640, height: 480))
        let extended = riff("VP8X", [0, 0, 0, 0, 0x7F, 0x02, 0, 0xDF, 0x01, 0])
        XCTAssertEqual(ImageFormat.sniff(extended), ImageFormat(mediaType: "image/webp", width: 640, height: 480))
    }

    func test_sniff_refusesOtherBytes_cutHeaders_andEmptyImages() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 2, 0x80, 0, 0, 1, 0xE0]
        for cut in 0..<png.count { XCTAssertNil(ImageFormat.sniff(Array(png.prefix(cut))), "cut at \(cut)") }
        XCTAssertNil(ImageFormat.sniff(Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)))
        XCTAssertNil(ImageFormat.sniff(Array("<script>".utf8)))
        XCTAssertNil(ImageFormat.sniff(Array("GIF89a".utf8) + [0, 0, 0x64, 0, 0, 0, 0]), "no width")
        XCTAssertNil(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xDA, 0, 2]), "scan data before any frame")
        XCTAssertNil(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]), "a segment length under 2")
    }
}
