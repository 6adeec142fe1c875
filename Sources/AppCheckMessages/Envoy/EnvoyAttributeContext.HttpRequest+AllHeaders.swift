extension EnvoyAttributeContext.HttpRequest {
    /// The request's headers however Envoy sent them: `headers`, and `header_map`, which Envoy sends instead when told
    /// to encode raw headers. Names are lower-cased; a raw header carries its value as bytes, and the values of a
    /// repeated name are joined with commas, as HTTP joins them.
    public var allHeaders: [String: String] {
        guard let raw = headerMap?.headers, !raw.isEmpty else { return headers }
        var all = headers
        for header in raw {
            let value = header.value.isEmpty ? String(decoding: header.rawValue, as: UTF8.self) : header.value
            let name = header.key.lowercased()
            all[name] = all[name].map { $0 + "," + value } ?? value
        }
        return all
    }
}
