import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport

/// Builds a random ``Program`` from a seed: the same seed always gives the same program.
struct ProgramGenerator {
    private var random: SplitMix64

    /// The program for `seed`.
    static func program(seed: UInt64) -> Program {
        var generator = ProgramGenerator(random: SplitMix64(seed: seed))
        let consumerCount = 1 + generator.below(4)
        let initialState = generator.state()
        let steps = (0..<(5 + generator.below(Self.maxSteps - 4))).map { _ in generator.operation(depth: 0) }
        return Program(seed: seed, consumerCount: consumerCount, initialState: initialState, steps: steps).normalized()
    }

    /// The longest program: 30 steps, or `MODEL_CHECK_MAX_STEPS` (at least 5) to explore longer
    /// ones (a seed replays the same program only with the same setting).
    static let maxSteps = max(
        5, ProcessInfo.processInfo.environment["MODEL_CHECK_MAX_STEPS"].flatMap { Int($0) } ?? 30)

    /// An operation; callbacks' reactions are generated at `depth` 1 and 2, and no deeper.
    private mutating func operation(depth: Int) -> Instruction {
        switch below(100) {
        case 0..<28: .dispatch(action())
        case 28..<52: .add(consumer: below(4), memberSpec(depth: depth))
        case 52..<60: .subscribe(consumer: below(4), bag: bag())
        case 60..<67: .cancelSubscription(below(16))
        case 67..<72: .cancelToken(below(32))
        case 72..<76: .removeToken(below(32))
        case 76..<78: .removeAll(consumer: below(4))
        case 78..<81: .emptyBag(below(ModelCheck.bagCount))
        case 81..<83: .releaseBag(below(ModelCheck.bagCount))
        case 83..<86: .releaseOwner(below(8))
        case 86..<90: .feed(consumer: below(4), state())
        case 90..<92: .resubscribe(consumer: below(4))
        case 92..<96: .subscribeClosure(reaction(depth: depth), bag: bag())
        default: .observeActions(reaction(depth: depth), bag: bag())
        }
    }

    private mutating func memberSpec(depth: Int) -> MemberSpec {
        let selector = FieldSelector.allCases[below(FieldSelector.allCases.count)]
        let shape: CallbackShape =
            switch below(10) {
            case 0..<2: .new
            case 2..<5: .oldNew
            case 5..<7: .oldNewState
            default: .owner(below(4))
            }
        let options: ConsumeOptions =
            switch below(10) {
            case 0..<5: []
            case 5..<7: .instantly
            case 7..<9: .pulse
            default: [.instantly, .pulse]
            }
        var equivalence: Equivalence?
        if shape == .oldNew, chance(40) {
            equivalence = below(2) == 0 ? .close : Equivalence.allCases[below(Equivalence.allCases.count)]
        }
        return MemberSpec(
            selector: selector,
            shape: shape,
            options: options,
            equivalence: equivalence,
            bag: bag(),
            reaction: reaction(depth: depth)
        )
    }

    private mutating func reaction(depth: Int) -> Reaction? {
        guard depth < 2, chance(35) else { return nil }
        let operations = (0..<(chance(25) ? 2 : 1)).map { _ in operation(depth: depth + 1) }
        return Reaction(operations: operations, times: 1 + below(3))
    }

    private mutating func bag() -> Int? {
        chance(25) ? below(ModelCheck.bagCount) : nil
    }

    private mutating func action() -> CheckAction {
        switch below(9) {
        case 0, 1: .setA(below(4))
        case 2: .addA(below(3) - 1)
        case 3: .setB(below(3))
        case 4: .rename(name())
        case 5: .append(below(3))
        case 6: .dropFirst
        default: .nothing
        }
    }

    private mutating func state() -> CheckState {
        CheckState(
            a: below(4),
            b: below(3),
            name: name(),
            list: (0..<below(3)).map { _ in below(3) }
        )
    }

    private mutating func name() -> String? {
        [nil, "x", "X", "y"][below(4)]
    }

    private mutating func below(_ bound: Int) -> Int {
        Int(random.next() % UInt64(bound))
    }

    private mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}
