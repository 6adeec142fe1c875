public import GRPC

/// A protobuf message attestd sends or receives, as a Swift value.
///
/// Encoding and decoding go through protobuf-c and the generated descriptors of `Protos/`; ``schema`` drives the
/// REST/JSON transcoding of the same message.
public protocol ProtoMessage: Sendable {
    /// Decodes the protobuf encoding of a message.
    ///
    /// - Throws: INVALID_ARGUMENT when the bytes are not a valid encoding of this message.
    init(serializedBytes: [UInt8]) throws(GRPCStatus)
    /// Decodes the protobuf encoding of a message held in part of a buffer (a deframed gRPC body).
    init(serializedBytes: ArraySlice<UInt8>) throws(GRPCStatus)
    /// The protobuf encoding of this message.
    func serializedBytes() -> [UInt8]
    /// The protobuf encoding behind gRPC's 5-byte length prefix (uncompressed), built in one buffer: a unary
    /// response body.
    func framedBytes() -> [UInt8]
    /// The shape of this message, derived once from its protobuf-c descriptor.
    static var schema: MessageSchema { get }
}

extension ProtoMessage {
    /// Decodes a REST request: the JSON `body` (empty means the default message) and the fields bound from the
    /// URL path.
    ///
    /// - Throws: INVALID_ARGUMENT naming the field when the JSON does not describe this message.
    public init(json body: ArraySlice<UInt8>, pathParameters: [PathParameter] = []) throws(GRPCStatus) {
        let bytes = try JSONTranscoder.protobuf(fromJSON: body, schema: Self.schema, pathParameters: pathParameters)
        try self.init(serializedBytes: bytes)
    }

    /// Decodes a REST request; see ``init(json:pathParameters:)-(ArraySlice<UInt8>,_)``.
    public init(json body: [UInt8], pathParameters: [PathParameter] = []) throws(GRPCStatus) {
        try self.init(json: body[...], pathParameters: pathParameters)
    }

    /// The proto3 JSON form of this message (lowerCamelCase names, standard base64, defaults omitted).
    ///
    /// - Throws: INTERNAL when a value has no JSON form (a Timestamp outside years 1–9999 or with nanoseconds
    ///   outside 0…999,999,999, such as one taken from a receipt): a bug in whoever built the message, reported
    ///   rather than sent.
    public func jsonBytes() throws(GRPCStatus) -> [UInt8] {
        try JSONTranscoder.json(fromProtobuf: serializedBytes(), schema: Self.schema)
    }
}
