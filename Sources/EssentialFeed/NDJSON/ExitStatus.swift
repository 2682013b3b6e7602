/// Remembers the first failure met: it alone decides the exit status.
public struct ExitStatus: Sendable {
    public private(set) var firstFailure: ErrorKind?

    public init() {}

    public mutating func record(_ kind: ErrorKind) {
        if firstFailure == nil { firstFailure = kind }
    }

    public var code: Int32 { firstFailure?.exitStatus ?? 0 }
}
