// fuzz-grpc-deframe: a unary gRPC request body through the 5-byte-prefix deframer, and the text a request carries
// besides its body (the :path, grpc-timeout, content-type, grpc-encoding, a REST target and resource names), all
// parsed from the same input.
import FuzzSupport
import GRPC

let restRouter = RESTRouter<Int>([
    (RESTBinding("POST", "/v1/{app=projects/*/apps/*}:exchangeAppAttestAssertion"), 0),
    (RESTBinding("GET", "/v1/{name=jwks}", hasBody: false), 1),
    (RESTBinding("POST", "/v1/{project=projects/*}:verifyAppCheckToken"), 2),
])

FuzzDriver.run { bytes in
    if let message = try? GRPCFraming.deframe(bytes, maxMessageSize: GRPCFraming.defaultMaxMessageSize) {
        precondition(message.count == bytes.count - GRPCFraming.prefixSize, "deframed message has the wrong length")
        precondition(GRPCFraming.frame(Array(message)) == bytes, "deframe and frame disagree")
    }
    _ = try? GRPCFraming.deframe(bytes[...], maxMessageSize: 16)

    let text = String(decoding: bytes, as: UTF8.self)
    _ = GRPCMethodPath(text)
    if let timeout = GRPCTimeout(headerValue: text) { _ = timeout.headerValue }
    _ = GRPCRequestHeaders.isGRPC(contentType: text)
    _ = try? GRPCRequestHeaders.checkEncoding(text)
    _ = restRouter.route(method: "POST", target: text)
    _ = try? AppResourceName(parsing: text)
    _ = try? ProjectResourceName(parsing: text)
}
