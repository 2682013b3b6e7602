import FeedCLI

/// `comments-map`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum CommentsMapTool {
    public static func main() -> Never {
        ResponseMapping.main(name: "comments-map", kind: .comments, about: """
            Reads response records (from feed-fetch --comments) on standard input and
            writes one image comment record per item of each valid comments response:
              {"id":UUID,"message":…,"created_at":"YYYY-MM-DDTHH:MM:SSZ","username":…}

            A response is valid only with a status from 200 through 299 and a JSON
            body {"items":[…]} whose every item has a UUID "id", a string "message",
            an ISO 8601 "created_at" (e.g. 2020-05-20T11:24:59+0000) and
            "author":{"username":…}. Dates are written in UTC with Z. An invalid
            response gives one invalid_data error record and no comment records.
            Error records on standard input are written through unchanged.

            """)
    }
}
