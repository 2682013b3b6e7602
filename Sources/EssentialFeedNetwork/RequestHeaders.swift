/// The one request shape of both clients: every GET, over http:// or
/// https://, carries `Host`, `User-Agent`, then these fields (and
/// `Authorization` when there are credentials), nothing else.
public enum RequestHeaders {
    /// `Accept`: any type (feed-fetch fetches feeds, comments and images).
    public static let accept = "*/*"
    /// `Accept-Encoding`: the codings both clients decode.
    public static let acceptEncoding = "gzip, deflate"
    /// The `User-Agent` a client sends unless told another.
    public static let defaultUserAgent = "feed-fetch"
}
