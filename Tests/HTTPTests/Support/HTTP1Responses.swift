/// A parsed HTTP/1.1 response, enough for tests: status, lowercased headers, body by Content-Length.
struct HTTP1TestResponse {
    var status: Int
    var headers: [String: String]
    var body: String
}

enum HTTP1Responses {
    /// Parses every complete response in `bytes`, in order.
    static func parse(_ bytes: [UInt8]) -> [HTTP1TestResponse] {
        var responses: [HTTP1TestResponse] = []
        var rest = bytes[...]
        while let headEnd = find(Array("\r\n\r\n".utf8), in: rest) {
            let head = String(decoding: rest[rest.startIndex..<headEnd], as: UTF8.self)
            var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { break }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " ")
            }
            let bodyStart = headEnd + 4
            let length = Int(headers["content-length"] ?? "0") ?? 0
            guard rest.endIndex - bodyStart >= length else { break }
            responses.append(HTTP1TestResponse(
                status: status, headers: headers,
                body: String(decoding: rest[bodyStart..<bodyStart + length], as: UTF8.self)))
            rest = rest[(bodyStart + length)...]
        }
        return responses
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String { String(self).trimmingCharacters(in: set) }
}
