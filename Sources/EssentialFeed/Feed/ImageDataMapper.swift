/// The case study's `FeedImageDataMapper`: an image response is valid only
/// with status 200 and a non-empty body.
public enum ImageDataMapper {
    public static func map(_ response: Response) throws(ErrorRecord) -> [UInt8] {
        guard response.status == 200 else {
            throw ErrorRecord(.invalidData, "image response status \(response.status) is not 200", context: response.errorContext)
        }
        let data: [UInt8]
        switch response.body {
        case let .bytes(bytes):
            data = bytes
        case let .json(document, node):
            var writer = JSONWriter()
            writer.value(document, node)
            data = writer.bytes
        }
        guard !data.isEmpty else {
            throw ErrorRecord(.invalidData, "image response body is empty", context: response.errorContext)
        }
        return data
    }
}
