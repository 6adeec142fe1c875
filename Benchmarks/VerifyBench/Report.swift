/// The table, the ratios against their targets, and the JSON form.
enum Report {
    struct Ratio {
        var key: String
        var name: String
        var value: Double
        var target: Double
        var met: Bool { value >= target }
    }

    static func printHeader(_ options: BenchOptions) {
        print("attestd-verify-bench: one thread, \(options.seconds) CPU-s per rate in interleaved 10 ms slices, "
              + "\(options.count) distinct inputs; full chain = an AttestationVerifier with "
              + "cacheCapacity 0 (its ReceiptVerifier keeps its own signer cache)")
        print(pad("measurement", 48) + pad("ops/s", 12, left: true) + pad("µs/op", 10, left: true))
    }

    static func printRow(_ measurement: Measurement) {
        print(pad(measurement.name, 48) + pad(format(measurement.perSecond, 0), 12, left: true)
              + pad(format(measurement.microsecondsPerOperation, 1), 10, left: true))
    }

    static func ratios(_ results: [String: Measurement]) -> [Ratio] {
        func rate(_ key: String) -> Double { results[key]?.perSecond ?? 0 }
        return [
            Ratio(key: "attestationWarmOverP384", name: "attestation (warm, no receipt) / P-384 verify",
                  value: rate("attestationWarm") / rate("opensslP384"), target: 0.9),
            // A receipt adds its CMS signer's P-256 signature to the leaf's P-384 one.
            Ratio(key: "attestationReceiptWarmOverP384P256", name: "attestation + receipt (warm) / P-384 + P-256",
                  value: rate("attestationReceiptWarm") * (1 / rate("opensslP384") + 1 / rate("opensslP256")), target: 0.9),
            Ratio(key: "assertionOverP256", name: "assertion / P-256 verify",
                  value: rate("assertion") / rate("opensslP256"), target: 0.9),
            Ratio(key: "cachedKeyOverP256", name: "P-256 verify, cached key / OpenSSL's",
                  value: rate("p256Cached") / rate("opensslP256"), target: 0.9),
            Ratio(key: "cachedKeyOverP384", name: "P-384 verify, cached key / OpenSSL's",
                  value: rate("p384Cached") / rate("opensslP384"), target: 0.9),
            Ratio(key: "warmOverFull", name: "attestation warm / full chain (no receipt)",
                  value: rate("attestationWarm") / rate("attestationFull"), target: 1.8),
            Ratio(key: "receiptWarmOverFull", name: "attestation + receipt warm / full chain",
                  value: rate("attestationReceiptWarm") / rate("attestationReceiptFull"), target: 1.8),
        ]
    }

    static func printRatios(_ ratios: [Ratio]) {
        print("")
        print(pad("ratio", 48) + pad("value", 12, left: true) + pad("target", 10, left: true) + "  met")
        for ratio in ratios {
            print(pad(ratio.name, 48) + pad(format(ratio.value, 3), 12, left: true)
                  + pad("≥ " + format(ratio.target, 1), 10, left: true) + (ratio.met ? "  yes" : "  NO"))
        }
    }

    static func printJSON(_ results: [String: Measurement], ratios: [Ratio], options: BenchOptions) {
        var fields: [String] = [
            "\"secondsPerMeasurement\":\(options.seconds)", "\"interleavedSliceSeconds\":0.01", "\"distinctInputs\":\(options.count)",
        ]
        let measured = results.keys.sorted().map { key in
            let m = results[key]!
            return "\"\(key)\":{\"name\":\"\(m.name)\",\"operations\":\(m.operations),\"seconds\":\(format(m.seconds, 3)),"
                + "\"perSecond\":\(format(m.perSecond, 1))}"
        }
        fields.append("\"measurements\":{\(measured.joined(separator: ","))}")
        let ratioFields = ratios.map {
            "\"\($0.key)\":{\"value\":\(format($0.value, 4)),\"target\":\($0.target),\"met\":\($0.met)}"
        }
        fields.append("\"ratios\":{\(ratioFields.joined(separator: ","))}")
        print("{\(fields.joined(separator: ","))}")
    }

    /// `value` with `digits` decimals, without Foundation.
    static func format(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        let whole = Int(scaled / scale)
        guard digits > 0 else { return String(whole) }
        let fraction = Int(abs(scaled) - abs(Double(whole)) * scale)
        let fractionText = String(fraction)
        return "\(whole).\(String(repeating: "0", count: digits - fractionText.count))\(fractionText)"
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}
