// fuzz-protobuf: protobuf-c unpacking of every request message attestd accepts (the first byte picks the RPC, the
// rest is the message), then the round trips a decoded message goes through: packing again, and its JSON form.
import AppCheckMessages
import FuzzSupport
import GRPC

let rpcs = AppCheckRPC.allCases

FuzzDriver.run { bytes in
    guard let selector = bytes.first else { return }
    let rpc = rpcs[Int(selector) % rpcs.count]
    let message = bytes[1...]
    guard let request = try? rpc.requestType.init(serializedBytes: message) else { return }
    // A decoded message packs to bytes that decode to the same packing: nothing read is lost or invented.
    let packed = request.serializedBytes()
    guard let again = try? rpc.requestType.init(serializedBytes: packed) else {
        preconditionFailure("\(rpc) request packed by us does not unpack")
    }
    precondition(again.serializedBytes() == packed, "\(rpc) request changes across a pack/unpack round trip")
    _ = try? request.jsonBytes()
    _ = request.framedBytes()
}
