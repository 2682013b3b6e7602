import Synchronization

/// An `HTTPClient` made on first use: for a client that is costly to make
/// and often not needed, such as a ``CurlHTTPClient`` kept as the
/// https fallback of a ``SocketHTTPClient`` (setting libcurl up takes
/// time and memory that a run with only http URLs does not have to spend).
public final class LazyHTTPClient: HTTPClient {
    private let make: @Sendable () -> any HTTPClient
    private let client = Mutex<(any HTTPClient)?>(nil)

    public init(_ make: @escaping @Sendable () -> any HTTPClient) {
        self.make = make
    }

    @discardableResult
    public func get(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        let client = client.withLock { client in
            if let client { return client }
            let made = make()
            client = made
            return made
        }
        return client.get(request, completion: completion)
    }
}
