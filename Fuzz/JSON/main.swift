// fuzz-json: REST requests' JSON bodies transcoded to protobuf through the GRPC module's parser and transcoder (the
// first byte picks the RPC, the rest is the body), then the way back; also protobuf to JSON on arbitrary bytes.
import AppCheckMessages
import FuzzSupport
import GRPC

let rpcs = AppCheckRPC.allCases

FuzzDriver.run { bytes in
    guard let selector = bytes.first else { return }
    let rpc = rpcs[Int(selector) % rpcs.count]
    let body = bytes[1...]
    _ = try? JSONParser().parse(body)
    _ = try? JSONTranscoder.json(fromProtobuf: body, schema: rpc.requestType.schema)
    guard let request = try? rpc.requestType.init(json: body) else { return }
    // A request read from JSON writes JSON that reads back as the same message.
    guard let json = try? request.jsonBytes() else { return }
    guard let again = try? rpc.requestType.init(json: json) else {
        preconditionFailure("\(rpc): our JSON does not transcode back: \(String(decoding: json, as: UTF8.self))")
    }
    precondition(
        again.serializedBytes() == request.serializedBytes(),
        "\(rpc) request changes across a JSON round trip: \(String(decoding: json, as: UTF8.self))")
}
