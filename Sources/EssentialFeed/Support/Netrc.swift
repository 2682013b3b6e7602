/// Where `.netrc` credentials are read from, as curl, git and wget read
/// them, so that a crontab or a URL need not hold a password. libcurl
/// reads the file itself (`CURLOPT_NETRC_FILE`) and sends its credentials
/// to the host they are for only.
public enum Netrc {
    /// The file to read: `$NETRC`, else `$HOME/.netrc`; nil when neither is set.
    public static func path(environment: [String: String]) -> String? {
        if let path = environment["NETRC"], !path.isEmpty { return path }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home.hasSuffix("/") ? home + ".netrc" : home + "/.netrc"
    }
}
