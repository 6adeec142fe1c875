/// Google's REST transcoding of protobuf messages (the proto3 JSON mapping), driven by a ``MessageSchema``.
///
/// JSON in: lowerCamelCase and snake_case names both accepted, unknown fields ignored, `bytes` in standard or
/// URL-safe base64 (padded or not), `Duration` as `"300s"`, 64-bit integers as strings or numbers; `{}` and an
/// absent body both mean the empty message. JSON out: lowerCamelCase names, standard padded base64, `Duration`
/// as `"300s"`/`"1.500s"`, 64-bit integers as strings, default values omitted.
public enum JSONTranscoder {
    /// The protobuf encoding of the request message a REST call describes: its JSON `body` (which may be empty)
    /// plus the fields bound from the URL path, which win over the body.
    ///
    /// - Throws: INVALID_ARGUMENT when the body is not JSON, not an object, or a field has the wrong type (the
    ///   message names the field).
    public static func protobuf(
        fromJSON body: ArraySlice<UInt8>,
        schema: MessageSchema,
        pathParameters: [PathParameter] = [],
        parser: JSONParser = JSONParser()
    ) throws(GRPCStatus) -> [UInt8] {
        let value: JSONValue
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            value = .object([])
        } else {
            do {
                value = try parser.parse(body)
            } catch {
                throw GRPCStatus(.invalidArgument, "Invalid JSON payload received: \(error).", cause: error)
            }
        }
        return try protobuf(fromJSON: value, schema: schema, pathParameters: pathParameters)
    }

    /// See ``protobuf(fromJSON:schema:pathParameters:parser:)-(ArraySlice<UInt8>,_,_,_)``.
    public static func protobuf(
        fromJSON body: [UInt8],
        schema: MessageSchema,
        pathParameters: [PathParameter] = [],
        parser: JSONParser = JSONParser()
    ) throws(GRPCStatus) -> [UInt8] {
        try protobuf(fromJSON: body[...], schema: schema, pathParameters: pathParameters, parser: parser)
    }

    /// The protobuf encoding of the message `value` (a JSON object) describes, with `pathParameters` set over it.
    public static func protobuf(
        fromJSON value: JSONValue,
        schema: MessageSchema,
        pathParameters: [PathParameter] = []
    ) throws(GRPCStatus) -> [UInt8] {
        if schema.isWellKnown && pathParameters.isEmpty {
            var writer = WireWriter()
            try encodeNested(value, schema: schema, type: .message(schema), path: "", into: &writer)
            return writer.bytes
        }
        guard case .object(let members) = value else {
            throw GRPCStatus(.invalidArgument, "Invalid JSON payload received: the request body must be a JSON object.")
        }
        var writer = WireWriter()
        let bound = pathParameters.map(\.field)
        try encodeMessage(members, schema: schema, path: "", skipping: bound, into: &writer)
        for parameter in pathParameters {
            guard let index = schema.fields.firstIndex(where: { $0.name == parameter.field }),
                  case .string = schema.fields[index].type else {
                throw GRPCStatus(.internal, "\(schema.fullName) has no string field '\(parameter.field)' to bind from the path.")
            }
            writer.lengthDelimited(schema.fields[index].number, parameter.value.utf8)
        }
        return writer.bytes
    }

    /// The JSON text of the protobuf message `bytes` of type `schema`.
    ///
    /// - Throws: INTERNAL when `bytes` is not a well-formed message of that type (a server bug, not client input).
    public static func json(fromProtobuf bytes: [UInt8], schema: MessageSchema) throws(GRPCStatus) -> [UInt8] {
        try json(fromProtobuf: bytes[...], schema: schema)
    }

    /// See ``json(fromProtobuf:schema:)-([UInt8],_)``.
    public static func json(fromProtobuf bytes: ArraySlice<UInt8>, schema: MessageSchema) throws(GRPCStatus) -> [UInt8] {
        var writer = JSONWriter(capacity: 32 + bytes.count * 2)
        let result: Result<Void, GRPCStatus> = bytes.withUnsafeBytes { raw in
            do throws(GRPCStatus) {
                try writeMessage(WireReader(raw), schema: schema, into: &writer)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return writer.bytes
    }
}
