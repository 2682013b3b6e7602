import EssentialFeed
import EssentialFeedNetwork
import FeedCLI

/// A response body past its memory bound, in the tools' one spool (memory,
/// then an unlinked temporary file): what the HTTP clients spill to.
final class SpooledBody: BodySpill, @unchecked Sendable {
    let spool: Spool

    init(environment: [String: String]) {
        spool = Spool(name: "feed-fetch", environment: environment, memoryLimit: 1 << 20)
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(HTTPFailure) {
        do throws(ErrorRecord) {
            try spool.append(bytes)
        } catch {
            throw HTTPFailure(.spill, error.message)
        }
    }
}
