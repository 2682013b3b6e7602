/// The boundary feed-fetch depends on: one GET, answered once on any thread.
public protocol HTTPClient: Sendable {
    @discardableResult
    func get(_ url: String, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask
}
