import FeedCLI

/// `feed-map`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedMapTool {
    public static func main() -> Never {
        ResponseMapping.main(name: "feed-map", kind: .feed, about: """
            Reads response records (from feed-fetch) on standard input and writes one
            feed image record per item of each valid feed response:
              {"id":UUID,"description"?:…,"location"?:…,"url":…}

            A response is valid only with status 200 and a JSON body {"items":[…]}
            whose every item has a UUID "id", an absolute URL "image" and optional
            string "description" and "location". An invalid response gives one
            invalid_data error record and no feed image records. Error records on
            standard input are written through unchanged.

            A valid response with validators ("etag", "last_modified") is followed
            by a page record for the cache, and a 304 (Not Modified) is one alone:
              {"page":URL,"status":200|304,"etag"?:…,"last_modified"?:…}

            """)
    }
}
