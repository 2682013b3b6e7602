import Dispatch
import EssentialFeedNetwork
import Foundation
import XCTest

/// Both clients keep a body past their memory bound in the spill they are
/// given, decoded, and still bounded by the body limit.
final class SpillingClientTests: XCTestCase {
    final class CollectingSpill: BodySpill, @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        var collected: [UInt8] { lock.withLock { bytes } }
        func append(_ piece: UnsafeRawBufferPointer) throws(HTTPFailure) { lock.withLock { bytes += piece } }
    }

    final class Spills: @unchecked Sendable {
        private let lock = NSLock()
        private var made: [CollectingSpill] = []
        var all: [CollectingSpill] { lock.withLock { made } }
        func make() -> CollectingSpill { let spill = CollectingSpill(); lock.withLock { made.append(spill) }; return spill }
    }

    private func clients(_ spills: Spills, maxBodyBytes: Int = 64 << 20) -> [HTTPClient] {
        let spilling = BodySpilling(memoryLimit: 1000) { spills.make() }
        return [CurlHTTPClient(timeout: 10, maxBodyBytes: maxBodyBytes, spilling: spilling)]
    }

    func test_aBodyPastTheMemoryBound_isInTheSpill_decoded_andASmallOneStaysInMemory() throws {
        let big = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for (fields, body, chunks) in [("", big, 0), ("", big, 5), ("Content-Encoding: gzip\r\n", Compression.compress(big, .gzip), 3)] {
            let answering = try HTTPClientTestCase.Answering(fields: fields, body: body, chunks: chunks)
            defer { answering.server.stop() }
            let spills = Spills()
            for client in clients(spills) {
                let result = try answer(of: client, answering.url).get()
                XCTAssertEqual(result.body, [], "\(fields) \(chunks)")
                XCTAssertEqual(result.bodyCount, big.count)
                XCTAssertEqual((result.spilled?.spill as? CollectingSpill)?.collected, big, "\(type(of: client)) \(fields) \(chunks)")
            }
        }
        let small = try HTTPClientTestCase.Answering(fields: "", body: Array(repeating: 1, count: 1000))
        defer { small.server.stop() }
        let spills = Spills()
        for client in clients(spills) {
            let result = try answer(of: client, small.url).get()
            XCTAssertNil(result.spilled)
            XCTAssertEqual(result.body.count, 1000)
        }
        XCTAssertTrue(spills.all.isEmpty)
    }

    func test_theBodyLimitStillHolds_pastTheMemoryBound() throws {
        let answering = try HTTPClientTestCase.Answering(fields: "", body: Array(repeating: 1, count: 50_000), chunks: 4)
        defer { answering.server.stop() }
        for client in clients(Spills(), maxBodyBytes: 20_000) {
            guard case let .failure(failure) = answer(of: client, answering.url) else { return XCTFail("over the limit") }
            XCTAssertEqual(failure.reason, .bodyTooLarge)
        }
    }
}
