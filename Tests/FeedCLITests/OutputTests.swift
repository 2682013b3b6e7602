import EssentialFeed
import FeedCLI
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Output writes whole records, buffered until a flush or the threshold,
/// error records as the tools report them.
final class OutputTests: XCTestCase {
    private var fds: [Int32] = [-1, -1]

    override func setUp() {
        XCTAssertEqual(pipe(&fds), 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    }

    override func tearDown() {
        close(fds[0])
        close(fds[1])
    }

    private func written() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func output(threshold: Int = 65_536) -> Output {
        Output(fd: fds[1], diagnostics: Diagnostics(tool: "t", environment: nil), threshold: threshold)
    }

    func test_holdsRecordsUntilFlushed() {
        let out = output()
        out.record { $0.beginObject(); $0.member("a", 1); $0.endObject() }
        out.line(Array(#"{"b":2}"#.utf8))
        XCTAssertEqual(written(), "", "nothing before a flush")
        out.flush()
        XCTAssertEqual(written(), "{\"a\":1}\n{\"b\":2}\n")
    }

    func test_writesWholeRecordsOncePastTheThreshold() {
        let out = output(threshold: 16)
        out.line(Array(#"{"long":"0123456789"}"#.utf8))
        XCTAssertEqual(written(), "{\"long\":\"0123456789\"}\n")
    }

    /// A streamed record that fails while its pieces are all still
    /// buffered leaves nothing of itself: the next record starts a line.
    func test_streamedRecord_failingBeforeAnyPieceIsWritten_leavesNothing() {
        let out = output()
        out.line(Array(#"{"a":1}"#.utf8))
        XCTAssertThrowsError(try out.streamedRecord { (stream) throws(ErrorRecord) in
            Array(#"{"url":"x","body":"#.utf8).withUnsafeBytes(stream.write)
            throw ErrorRecord(.store, "cannot read a temporary file")
        })
        out.line(Array(#"{"b":2}"#.utf8))
        out.flush()
        XCTAssertEqual(written(), "{\"a\":1}\n{\"b\":2}\n")
    }

    func test_errorRecords_nameTheInputLineAndHidePasswords() {
        let out = output()
        out.error(ErrorRecord(.connectivity, "cannot reach http://u:secret@h/x", line: 2))
        out.flush()
        XCTAssertEqual(written(), #"{"error":"connectivity","message":"stdin:2: cannot reach http://u:***@h/x"}"# + "\n")
    }
}
