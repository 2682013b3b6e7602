/// A request in flight.
public protocol HTTPClientTask: Sendable {
    func cancel()
}
