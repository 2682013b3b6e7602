import EssentialFeed
#if canImport(Glibc)
import Glibc
#endif

extension HTTPDate {
    /// Now, for the `Date` field.
    static func now() -> String { format(Int(time(nil))) }
}
