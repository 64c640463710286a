import DispatchKit
import HeraldTestSupport
import Testing

/// A destination that keeps failing is held, probed once a while, and let through again once
/// it answers; time is a `TestClock`.
struct CircuitBreakerTests {
    let clock = TestClock()

    func breaker(threshold: Int = 3) -> CircuitBreaker<TestClock> {
        CircuitBreaker(configuration: CircuitBreakerConfiguration(threshold: threshold, firstOpen: .seconds(30), longestOpen: .seconds(100)), clock: clock)
    }

    @Test func failuresFewerThanTheThresholdKeepItClosed() {
        let circuit = breaker()
        circuit.record(failed: true, probe: false)
        circuit.record(failed: true, probe: false)
        #expect(circuit.admit() == .send(probe: false))
        circuit.record(failed: false, probe: false)
        circuit.record(failed: true, probe: false)
        circuit.record(failed: true, probe: false)
        #expect(circuit.admit() == .send(probe: false), "an answer starts the count again")
    }

    @Test func theThresholdOpensItAndSendsAreHeldForWhatIsLeft() {
        let circuit = breaker()
        for _ in 0..<2 { #expect(circuit.record(failed: true, probe: false) == nil) }
        guard case .open? = circuit.record(failed: true, probe: false) else { Issue.record("not opened"); return }
        #expect(circuit.admit() == .hold(.seconds(30)))
        clock.advance(by: .seconds(20))
        #expect(circuit.admit() == .hold(.seconds(10)))
    }

    @Test func whenTheTimeIsUpOneSendProbesAndTheOthersAreHeld() {
        let circuit = breaker()
        for _ in 0..<3 { circuit.record(failed: true, probe: false) }
        clock.advance(by: .seconds(30))
        #expect(circuit.admit() == .send(probe: true))
        #expect(circuit.admit() == .hold(.seconds(30)))
        #expect(circuit.admit() == .hold(.seconds(30)))
    }

    @Test func aFailedProbeOpensItForTwiceAsLongUpToTheLongest() {
        let circuit = breaker()
        for _ in 0..<3 { circuit.record(failed: true, probe: false) }
        var lengths: [Duration] = []
        for _ in 0..<4 {
            clock.advance(by: .seconds(1000))
            #expect(circuit.admit() == .send(probe: true))
            if case .open(_, let length)? = circuit.record(failed: true, probe: true) { lengths.append(length) }
        }
        #expect(lengths == [.seconds(60), .seconds(100), .seconds(100), .seconds(100)])
    }

    @Test func anAnsweredProbeClosesIt() {
        let circuit = breaker()
        for _ in 0..<3 { circuit.record(failed: true, probe: false) }
        clock.advance(by: .seconds(30))
        #expect(circuit.admit() == .send(probe: true))
        #expect(circuit.record(failed: false, probe: true) == .closed(failures: 0))
        #expect(circuit.admit() == .send(probe: false))
    }

    @Test func aFailureOfASendLetOutBeforeItOpenedIsNoNews() {
        let circuit = breaker()
        for _ in 0..<3 { circuit.record(failed: true, probe: false) }
        #expect(circuit.record(failed: true, probe: false) == nil)
        clock.advance(by: .seconds(30))
        #expect(circuit.admit() == .send(probe: true))
        #expect(circuit.record(failed: true, probe: false) == nil, "only the probe's failure reopens it")
        #expect(circuit.admit() == .hold(.seconds(30)))
    }

    @Test func aProbeNeverAnsweredIsReplacedAfterTheFirstOpenTime() {
        let circuit = breaker()
        for _ in 0..<3 { circuit.record(failed: true, probe: false) }
        clock.advance(by: .seconds(30))
        #expect(circuit.admit() == .send(probe: true))
        clock.advance(by: .seconds(29))
        #expect(circuit.admit() == .hold(.seconds(30)))
        clock.advance(by: .seconds(1))
        #expect(circuit.admit() == .send(probe: true), "a lost probe does not hold everything for ever")
    }
}
