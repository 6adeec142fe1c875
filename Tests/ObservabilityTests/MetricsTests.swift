import Observability
import Testing

@Suite("Prometheus metrics")
struct MetricsTests {
    @Test("counts requests by method and code and renders a cumulative histogram")
    func requestMetrics() {
        let metrics = RequestMetrics(methods: ["GenerateAppAttestChallenge"], buckets: [0.001, 0.01])
        metrics.record(method: "GenerateAppAttestChallenge", code: "OK", seconds: 0.0005)
        metrics.record(method: "GenerateAppAttestChallenge", code: "OK", seconds: 0.005)
        metrics.record(method: "GenerateAppAttestChallenge", code: "INVALID_ARGUMENT", seconds: 0.5)
        metrics.record(method: "NoSuchMethod", code: "UNIMPLEMENTED", seconds: 0)
        #expect(metrics.count(method: "GenerateAppAttestChallenge", code: "OK") == 2)
        #expect(metrics.count(method: RequestMetrics.otherMethod, code: "UNIMPLEMENTED") == 1)
        var text = ""
        metrics.render(into: &text)
        #expect(text.contains("attestd_requests_total{method=\"GenerateAppAttestChallenge\",code=\"OK\"} 2\n"))
        #expect(text.contains("attestd_request_duration_seconds_bucket{method=\"GenerateAppAttestChallenge\",le=\"0.001\"} 1\n"))
        #expect(text.contains("attestd_request_duration_seconds_bucket{method=\"GenerateAppAttestChallenge\",le=\"0.01\"} 2\n"))
        #expect(text.contains("attestd_request_duration_seconds_bucket{method=\"GenerateAppAttestChallenge\",le=\"+Inf\"} 3\n"))
        #expect(text.contains("attestd_request_duration_seconds_count{method=\"GenerateAppAttestChallenge\"} 3\n"))
    }

    @Test("escapes label values and renders gauges through the registry")
    func registry() {
        let registry = MetricsRegistry()
        let failures = CounterFamily(name: "attestd_verification_failures_total", help: "Failures.", labelNames: ["reason"])
        failures.increment(["quote\"d"])
        registry.register(failures)
        registry.register(ScrapedMetric(.gauge, name: "attestd_open_connections", help: "Open.", read: { 3 }))
        registry.register(ScrapedMetric(.counter, name: "attestd_idle_memory_released_bytes_total", help: "Given back.", read: { 16384 }))
        let text = registry.render()
        #expect(text.contains("# TYPE attestd_idle_memory_released_bytes_total counter\nattestd_idle_memory_released_bytes_total 16384\n"))
        #expect(text.contains("attestd_verification_failures_total{reason=\"quote\\\"d\"} 1\n"))
        #expect(text.contains("# TYPE attestd_open_connections gauge\nattestd_open_connections 3\n"))
    }
}

@Suite("Declared counter series")
struct DeclaredCounterTests {
    @Test("exports declared label sets at zero before anything happens, and declaring again never resets a count")
    func declaredAtZero() {
        let family = CounterFamily(name: "attestd_x_total", help: "X.", labelNames: ["app", "reason"])
        family.declare(CounterFamily.combinations(["a", "b"], ["expired", "forged"]))
        var text = ""
        family.render(into: &text)
        for (app, reason) in [("a", "expired"), ("a", "forged"), ("b", "expired"), ("b", "forged")] {
            #expect(text.contains("attestd_x_total{app=\"\(app)\",reason=\"\(reason)\"} 0\n"), "\(text)")
        }
        family.increment(["a", "forged"], by: 2)
        family.declare([["a", "forged"]])
        #expect(family.value(["a", "forged"]) == 2)
        // A label set nobody declared still appears when first used.
        family.increment(["c", "malformed(authData)"])
        text = ""
        family.render(into: &text)
        #expect(text.contains("attestd_x_total{app=\"c\",reason=\"malformed(authData)\"} 1\n"))
    }

    @Test("combines columns into every label set, in order")
    func combinations() {
        #expect(CounterFamily.combinations(["a", "b"], ["x"], ["1", "2"]) == [
            ["a", "x", "1"], ["a", "x", "2"], ["b", "x", "1"], ["b", "x", "2"],
        ])
        #expect(CounterFamily.combinations(["a"], []) == [])
    }
}

@Suite("Request stage metrics")
struct RequestStageMetricsTests {
    @Test("render each stage's durations as a cumulative histogram with its stage label")
    func render() {
        let queue = DurationHistogram()
        let answer = DurationHistogram()
        queue.record(from: 1_000, to: 51_000)  // 50 µs
        queue.record(from: 0, to: 2_000_000)  // 2 ms
        queue.record(from: 0, to: 10_000_000_000)  // 10 s
        queue.record(from: 5, to: 1)  // a clock read out of order counts as nothing
        var text = ""
        RequestStageMetrics([("verifier_queue", queue), ("answer_return", answer)]).render(into: &text)
        #expect(text.contains("# TYPE attestd_request_stage_seconds histogram\n"))
        #expect(text.contains("attestd_request_stage_seconds_bucket{stage=\"verifier_queue\",le=\"0.0001\"} 2\n"))
        #expect(text.contains("attestd_request_stage_seconds_bucket{stage=\"verifier_queue\",le=\"0.0025\"} 3\n"))
        #expect(text.contains("attestd_request_stage_seconds_bucket{stage=\"verifier_queue\",le=\"5\"} 3\n"))
        #expect(text.contains("attestd_request_stage_seconds_bucket{stage=\"verifier_queue\",le=\"+Inf\"} 4\n"))
        #expect(text.contains("attestd_request_stage_seconds_sum{stage=\"verifier_queue\"} 10.00205\n"))
        #expect(text.contains("attestd_request_stage_seconds_count{stage=\"verifier_queue\"} 4\n"))
        #expect(text.contains("attestd_request_stage_seconds_count{stage=\"answer_return\"} 0\n"))
        #expect(queue.count == 4)
    }
}

