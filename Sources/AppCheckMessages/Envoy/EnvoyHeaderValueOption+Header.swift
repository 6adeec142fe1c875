extension EnvoyHeaderValueOption {
    /// A header to set on a request or an answer. `appendAction` defaults to replacing whatever the client sent under
    /// the same name, which identity headers need; `append` (deprecated upstream) is left absent unless given, so
    /// that `appendAction` alone says what happens.
    public init(_ key: String, _ value: String, appendAction: HeaderAppendAction = .overwriteIfExistsOrAdd,
                append: Bool? = nil) {
        self.init(header: EnvoyHeaderValue(key: key, value: value), append: append.map { ProtoBoolValue(value: $0) },
                  appendAction: appendAction)
    }
}
