/// Where https servers' certificates are checked from, as curl reads the
/// environment: `SSL_CERT_FILE` (a file of PEM certificates) and
/// `SSL_CERT_DIR` (a directory hashed by `openssl rehash`); with neither,
/// libcurl's own default, the system's store. libcurl itself does not
/// read these variables (its built-in bundle path takes precedence over
/// OpenSSL's), so the client names them.
public struct CertificateAuthorities: Sendable, Equatable {
    public let file: String?
    public let directory: String?

    public static let system = CertificateAuthorities(environment: [:])

    public init(environment: [String: String]) {
        file = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        directory = environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
