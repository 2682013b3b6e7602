import FeedServer
import Foundation
import XCTest

/// Starts servers on port 0 and stops them after each test.
class FeedServerTestCase: XCTestCase {
    static let acceptanceIDs = [
        "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086",
        "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A",
        "166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F",
    ]

    func makeServer(
        fixtures: FeedServerFixtures = .acceptance, faults: FeedServerFaults = .init(), etags: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (server: FeedServer, port: UInt16, base: String) {
        let server = FeedServer(fixtures: fixtures, faults: faults, recordsRequests: true, etags: etags)
        let base = try server.start()
        addTeardownBlock { server.stop() }
        XCTAssertEqual(base, "http://127.0.0.1:\(server.port)", file: file, line: line)
        return (server, server.port, base)
    }

    func get(_ target: String, port: UInt16, method: String = "GET", fields: [String] = [],
             file: StaticString = #filePath, line: UInt = #line) throws -> RawHTTPResponse {
        try XCTUnwrap(RawHTTPConnection.get(target, port: port, method: method, fields: fields),
                      "no response to \(method) \(target)", file: file, line: line)
    }

    func ids(_ response: RawHTTPResponse) -> [String] {
        (response.items ?? []).compactMap { $0["id"] as? String }
    }

    /// Milliseconds spent in `body`.
    func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start) * 1000
    }

    func makeTemporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "/FeedServerTests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true
        )
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
