/// What the gateway needs to know about one downstream request, whichever sidecar asked.
struct GatewayRequest: Sendable {
    var method: String
    /// The request target; a query is ignored by route matching.
    var path: String
    /// The route policy the sidecar named, if it named one.
    var routeName: String?
    /// The App Check token, nil or empty when the request carried none.
    var token: String?
}
