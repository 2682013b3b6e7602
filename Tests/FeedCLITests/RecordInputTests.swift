import EssentialFeed
import FeedCLI
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The inputs of a save and of save-images: records pulled one at a time,
/// failures reported as they are met, a rejected input throwing its first
/// real failure.
final class RecordInputTests: XCTestCase {
    private var input: [Int32] = [-1, -1]
    private var output: [Int32] = [-1, -1]
    private var tool: Tool!

    private let a = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/a"}"#
    private let b = #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","description":"d","url":"http://h/b"}"#

    /// A tool over pipes holding `text` as its whole input.
    private func makeTool(_ text: String) {
        XCTAssertEqual(pipe(&input), 0)
        XCTAssertEqual(pipe(&output), 0)
        _ = fcntl(output[0], F_SETFL, O_NONBLOCK)
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }, bytes.count)
        close(input[1])
        tool = Tool(name: "t", help: "", options: [], arguments: [], environment: ["FEED_LOG": "none"],
                    streams: Tool.Streams(input: input[0], output: output[1], handlesSignals: false))
    }

    override func tearDown() {
        for fd in [input[0], output[0], output[1]] where fd >= 0 { close(fd) }
    }

    private func written() -> [String] {
        tool.output.flush()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Reads the whole save input; the ids added, and the failure thrown.
    private func save(_ saveInput: SaveInput) -> (ids: [String], thrown: ErrorRecord?) {
        var ids: [String] = []
        var seen = Set<String>()
        do {
            while try saveInput.next({ image in
                let id = String(decoding: image.id, as: UTF8.self)
                guard seen.insert(id).inserted else { return false }
                ids.append(id)
                return true
            }) {}
        } catch {
            return (ids, error)
        }
        return (ids, nil)
    }

    func test_save_readsEveryImageOnce_andTeeWritesOnWhatWasAdded() {
        makeTool("\(a)\n\n\(b)\n\(a)\n")
        let saveInput = SaveInput(tool: tool, tee: true)
        XCTAssertEqual(saveInput.readAhead(bytes: 1 << 20), 3)
        let (ids, thrown) = save(saveInput)
        XCTAssertNil(thrown)
        XCTAssertEqual(ids, ["2AB2AE66-A4B7-4A16-B374-51BBAC8DB086", "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A"])
        XCTAssertTrue(saveInput.ended)
        XCTAssertFalse(saveInput.rejected)
        XCTAssertEqual(written(), [], "nothing is written on before the save is over")
        saveInput.writeOn()
        XCTAssertEqual(written(), [a, b], "the second a was not added")
    }

    func test_save_anInvalidLineRejectsTheInputWithItsOwnFailure_andDrainReportsTheRest() {
        makeTool("\(a)\nnot json\n\(b)\n[1]\n")
        let saveInput = SaveInput(tool: tool, tee: false)
        let (ids, thrown) = save(saveInput)
        XCTAssertEqual(ids.count, 1)
        XCTAssertEqual(thrown?.kind, .invalidData)
        XCTAssertEqual(thrown?.line, 2, "the first real failure, not a stand-in")
        XCTAssertTrue(saveInput.rejected)
        saveInput.drain()
        let lines = written()
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines[0].contains(#""message":"stdin:2: invalid JSON"#), lines[0])
        XCTAssertTrue(lines[1].contains(#""message":"stdin:4: not a JSON object""#), lines[1])
        XCTAssertEqual(tool.exitCode, 65)
    }

    func test_save_anErrorRecordIsWrittenThroughAndRejectsTheInput() {
        let failure = #"{"error":"connectivity","message":"down"}"#
        makeTool("\(failure)\n\(a)\n")
        let saveInput = SaveInput(tool: tool, tee: false)
        XCTAssertEqual(saveInput.readAhead(bytes: 1 << 20), 0)
        XCTAssertTrue(saveInput.rejected)
        XCTAssertEqual(saveInput.rejection?.kind, .connectivity)
        saveInput.drain()
        XCTAssertEqual(written(), [failure])
        XCTAssertEqual(tool.exitCode, 69)
    }

    func test_imageInput_skipsAnInvalidResponse_butAnInvalidLineMakesItUntrusted() {
        let good = #"{"url":"http://h/a.png","status":200,"body_base64":"iVBORw=="}"#
        let missing = #"{"url":"http://h/b.png","status":404,"body":{}}"#
        makeTool("\(missing)\n\(good)\n{")
        let images = ImageInput(tool: tool)
        let first = images.next()
        XCTAssertEqual(first?.url, "http://h/a.png")
        XCTAssertEqual(first?.data, [0x89, 0x50, 0x4E, 0x47])
        XCTAssertTrue(images.trusted, "an invalid response is reported and skipped")
        XCTAssertNil(images.next())
        XCTAssertFalse(images.trusted, "a truncated line cannot be trusted")
        XCTAssertTrue(images.ended)
        let lines = written()
        XCTAssertTrue(lines.first?.contains("stdin:1: image response status 404 is not 200") ?? false, "\(lines)")
        XCTAssertTrue(lines.last?.contains("stdin:3: truncated line") ?? false, "\(lines)")
    }
}
