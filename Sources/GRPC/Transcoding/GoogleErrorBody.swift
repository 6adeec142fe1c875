/// Google's REST error body: `{"error":{"code":403,"message":"App attestation failed.","status":"PERMISSION_DENIED"}}`.
public enum GoogleErrorBody {
    /// The JSON body for `status` (its `code` is the HTTP status the caller sends).
    public static func json(for status: GRPCStatus) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + status.message.utf8.count)
        writer.appendRaw("{\"error\":{\"code\":")
        writer.appendRaw(String(status.code.httpStatus).utf8)
        writer.appendRaw(",\"message\":")
        writer.appendString(status.message)
        writer.appendRaw(",\"status\":")
        writer.appendString(status.code.name)
        writer.appendRaw("}}")
        return writer.bytes
    }
}
