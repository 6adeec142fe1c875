/// A JWT `aud` claim, which RFC 7519 §4.1.3 allows as one string or an array of strings.
struct Audience: Decodable {
    let values: [String]
    /// True when the claim was an array (App Check tokens must use one: the Admin SDKs insist).
    let isArray: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let single = try? container.decode(String.self) {
            values = [single]
            isArray = false
        } else {
            values = try container.decode([String].self)
            isArray = true
        }
    }
}
