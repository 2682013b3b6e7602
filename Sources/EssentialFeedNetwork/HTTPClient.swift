/// The boundary feed-fetch depends on: one GET, answered once on any thread.
public protocol HTTPClient: Sendable {
    @discardableResult
    func get(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask
}

extension HTTPClient {
    /// A plain GET of `url`.
    @discardableResult
    public func get(_ url: String, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        get(HTTPRequest(url), completion: completion)
    }
}
