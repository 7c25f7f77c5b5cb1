/// One callback as the program saw it.
enum CallEvent: Equatable, Sendable, CustomStringConvertible {
    /// A member of consumer `consumer`, registration `member`; `old` is `nil` for the `{ new in }`
    /// form, `state` is the state of the `{ old, new, state in }` form.
    case member(member: Int, consumer: Int, owner: Int?, old: Picked?, new: Picked, state: CheckState?)
    case subscriber(Int, old: CheckState, new: CheckState)
    case listener(Int, CheckAction)
    /// Something the program did not expect the library to do (kept an owner alive, printed a
    /// diagnostic); the model never records one.
    case anomaly(String)

    var description: String {
        switch self {
        case .member(let member, let consumer, let owner, let old, let new, let state):
            let who = "c\(consumer).m\(member)" + (owner.map { " (owner[\($0)])" } ?? "")
            let change = old.map { "\($0) → \(new)" } ?? "→ \(new)"
            return "\(who) \(change)" + (state.map { " in \($0)" } ?? "")
        case .subscriber(let subscriber, let old, let new):
            return "s\(subscriber) \(old) → \(new)"
        case .listener(let listener, let action):
            return "l\(listener) \(action)"
        case .anomaly(let text):
            return "! \(text)"
        }
    }
}

/// What one top-level step did: its callbacks in order, and the counts and state after it.
struct StepOutcome: Equatable, Sendable {
    var events: [CallEvent]
    var memberCounts: [Int]
    var subscriberCount: Int
    var bagCounts: [Int]
    var state: CheckState
}

extension StepOutcome: CustomStringConvertible {
    var description: String {
        let lines = events.map { "    \($0)" }
        let counts =
            "    count \(memberCounts), subscriberCount \(subscriberCount), bags \(bagCounts), state \(state)"
        return (lines + [counts]).joined(separator: "\n")
    }
}

/// Something that runs programs: the model, or the library.
protocol ProgramRunner: AnyObject {
    init(program: Program)
    /// Runs one top-level step and says what it did.
    func run(_ step: Instruction) -> StepOutcome
    /// Lets go of everything the program made; returns the anomalies seen then (leaks).
    func finish() -> [CallEvent]
}
