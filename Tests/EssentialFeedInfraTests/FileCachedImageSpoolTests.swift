import EssentialFeed
import Foundation
import XCTest
@testable import EssentialFeedInfra

/// The spool a merging save copies a large cached feed into: the same
/// images, in the same order, as the in-memory one, whether they stayed in
/// memory or went to its temporary file.
final class FileCachedImageSpoolTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "image-spool-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func test_givesTheImagesAsTheInMemorySpool_inMemoryAndInItsFile() throws {
        let images = makeImages(count: 3_000)
        for limit in [1 << 30, 16 << 10] {
            let sut = FileCachedImageSpool(directory: directory, path: directory + "/feed.sqlite", memoryLimit: limit)
            let model = CachedImageRun()
            for image in images {
                try CachedImageText.lending(image) { (text) throws(ErrorRecord) in
                    try sut.append(text)
                    try model.append(text)
                }
            }
            XCTAssertEqual(sut.isInFile, limit < 1 << 30)
            XCTAssertEqual(sut.count, images.count)
            for range in [0..<3_000, 0..<0, 1023..<1025, 1024..<2049, 2_999..<3_000, 17..<2_500] {
                XCTAssertEqual(try lines(sut, range), try lines(model, range), "\(range), limit \(limit)")
            }
            for (id, start) in [(images[0].id, 0), (images[1_500].id, 0), (images[1_500].id, 1_500), (images[1_500].id, 1_501), (images[2_999].id, 1_030), (UUID(), 0)] {
                let text = id.withCanonicalText { Array($0) }
                XCTAssertEqual(try sut.index(of: text, from: start), model.index(of: text, from: start), "\(id) from \(start)")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "the temporary file is unlinked")
    }

    func test_anImageLargerThanTheReadBuffer_isGivenWhole() throws {
        let sut = FileCachedImageSpool(directory: directory, path: directory + "/feed.sqlite", memoryLimit: 1)
        let images = [FeedImage(id: UUID(), description: String(repeating: "d", count: 3 << 20), location: nil, url: "https://a.example/1"),
                      FeedImage(id: UUID(), description: nil, location: "", url: "https://a.example/2")]
        for image in images { try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try sut.append(text) } }
        var out: [FeedImage] = []
        try sut.forEach(in: 0..<2) { out.append($0.image) }
        XCTAssertEqual(out, images)
    }

    private func makeImages(count: Int) -> [FeedImage] {
        (0..<count).map { i in
            FeedImage(id: UUID(), description: i % 3 == 0 ? nil : String(repeating: "é", count: i % 50),
                      location: i % 5 == 0 ? nil : "place \(i)", url: "https://images.example/\(i)/" + String(repeating: "x", count: i % 700))
        }
    }

    private func lines(_ spool: any CachedImageSpool, _ range: Range<Int>) throws -> [String] {
        var out: [String] = []
        try spool.forEach(in: range) { (image) in
            var bytes: [UInt8] = []
            image.appendRecord(to: &bytes)
            out.append(String(decoding: bytes, as: UTF8.self))
        }
        return out
    }
}
