import ReduxConsumer

/// One operation of a random program, run at top level or from inside a callback.
///
/// Operations name consumers, tokens, subscriptions, bags and owners by number; the number is
/// taken modulo what exists when the operation runs (see ``Ledger``), so every operation is valid
/// in any program, and removing steps (shrinking) keeps a program runnable.
indirect enum Instruction: Sendable {
    case dispatch(CheckAction)
    case add(consumer: Int, MemberSpec)
    /// `token.cancel()`.
    case cancelToken(Int)
    /// `consumer.remove(token)` on the token's own consumer.
    case removeToken(Int)
    case removeAll(consumer: Int)
    case emptyBag(Int)
    /// Replaces the bag with a new one: the old one deinitialises and cancels what it held.
    case releaseBag(Int)
    case releaseOwner(Int)
    case subscribe(consumer: Int, bag: Int?)
    case cancelSubscription(Int)
    /// Cancels every live subscription handle of the consumer, then subscribes it again: from a
    /// callback, the consumer leaves and comes back in the middle of a pass.
    case resubscribe(consumer: Int)
    /// `consumer.consume(newState:)`; skipped while the consumer is subscribed or in a pass.
    case feed(consumer: Int, CheckState)
    case subscribeClosure(Reaction?, bag: Int?)
    case observeActions(Reaction?, bag: Int?)
}

/// How a member is added: `consumer.add(selector, [isEqual:], [owner:], options:) { … }`.
struct MemberSpec: Sendable {
    var selector: FieldSelector
    var shape: CallbackShape
    var options: ConsumeOptions
    /// Only with ``CallbackShape/oldNew``, the one shape `isEqual` comes with.
    var equivalence: Equivalence?
    var bag: Int?
    var reaction: Reaction?
}

/// The callback forms of `StateConsumer.add`.
enum CallbackShape: Sendable, Equatable {
    case new
    case oldNew
    case oldNewState
    /// The `owner:` form; the number picks a live owner, or a new one when it is past the end.
    case owner(Int)
}

/// What a callback does besides recording its call: runs `operations`, in order, on its first
/// `times` calls (a bound, so that a callback that dispatches cannot chain forever).
struct Reaction: Sendable {
    var operations: [Instruction]
    var times: Int
}

/// A random program: the consumers it uses, the store's initial state and its steps.
struct Program: Sendable {
    var seed: UInt64
    var consumerCount: Int
    var initialState: CheckState
    var steps: [Instruction]
}

extension Program {
    /// The same program with consumer numbers taken modulo ``consumerCount``, as they run.
    func normalized() -> Program {
        var program = self
        program.steps = steps.map { $0.normalized(consumerCount: consumerCount) }
        return program
    }
}

extension Instruction {
    func normalized(consumerCount: Int) -> Instruction {
        func reaction(_ reaction: Reaction?) -> Reaction? {
            reaction.map { reaction in
                Reaction(
                    operations: reaction.operations.map { $0.normalized(consumerCount: consumerCount) },
                    times: reaction.times
                )
            }
        }
        switch self {
        case .add(let consumer, var spec):
            spec.reaction = reaction(spec.reaction)
            return .add(consumer: consumer % consumerCount, spec)
        case .removeAll(let consumer):
            return .removeAll(consumer: consumer % consumerCount)
        case .subscribe(let consumer, let bag):
            return .subscribe(consumer: consumer % consumerCount, bag: bag)
        case .resubscribe(let consumer):
            return .resubscribe(consumer: consumer % consumerCount)
        case .feed(let consumer, let state):
            return .feed(consumer: consumer % consumerCount, state)
        case .subscribeClosure(let nested, let bag):
            return .subscribeClosure(reaction(nested), bag: bag)
        case .observeActions(let nested, let bag):
            return .observeActions(reaction(nested), bag: bag)
        default:
            return self
        }
    }
}

extension Program: CustomStringConvertible {
    var description: String {
        var lines = ["consumers: \(consumerCount), initial state: \(initialState)"]
        for (index, step) in steps.enumerated() {
            lines.append("step \(index): \(step)")
        }
        return lines.joined(separator: "\n")
    }
}

extension Instruction: CustomStringConvertible {
    var description: String {
        switch self {
        case .dispatch(let action): "dispatch(\(action))"
        case .add(let consumer, let spec): "c\(consumer).add\(spec)"
        case .cancelToken(let token): "token[\(token)].cancel()"
        case .removeToken(let token): "remove(token[\(token)])"
        case .removeAll(let consumer): "c\(consumer).removeAll()"
        case .emptyBag(let bag): "bag\(bag).removeAll()"
        case .releaseBag(let bag): "release bag\(bag)"
        case .releaseOwner(let owner): "release owner[\(owner)]"
        case .subscribe(let consumer, let bag): "subscribe(c\(consumer))" + Self.bagSuffix(bag)
        case .cancelSubscription(let subscription): "subscription[\(subscription)].cancel()"
        case .resubscribe(let consumer): "resubscribe(c\(consumer))"
        case .feed(let consumer, let state): "c\(consumer).consume(\(state))"
        case .subscribeClosure(let reaction, let bag):
            "subscribe { old, new in }" + Self.bagSuffix(bag) + Self.reactionSuffix(reaction)
        case .observeActions(let reaction, let bag):
            "observeActions { action in }" + Self.bagSuffix(bag) + Self.reactionSuffix(reaction)
        }
    }

    static func bagSuffix(_ bag: Int?) -> String {
        bag.map { " in bag\($0)" } ?? ""
    }

    static func reactionSuffix(_ reaction: Reaction?) -> String {
        reaction.map { reaction in
            let operations = reaction.operations.map { "\($0)" }.joined(separator: "; ")
            return " then { \(operations) } (first \(reaction.times) calls)"
        } ?? ""
    }
}

extension MemberSpec: CustomStringConvertible {
    var description: String {
        var arguments = ["\(selector)"]
        if let equivalence {
            arguments.append("isEqual: \(equivalence)")
        }
        if case .owner(let owner) = shape {
            arguments.append("owner: owner[\(owner)]")
        }
        var names: [String] = []
        if options.contains(.instantly) { names.append(".instantly") }
        if options.contains(.pulse) { names.append(".pulse") }
        if !names.isEmpty {
            arguments.append("options: [\(names.joined(separator: ", "))]")
        }
        let closure =
            switch shape {
            case .new: "{ new in }"
            case .oldNew: "{ old, new in }"
            case .oldNewState: "{ old, new, state in }"
            case .owner: "{ owner, old, new in }"
            }
        return "(\(arguments.joined(separator: ", "))) \(closure)" + Instruction.bagSuffix(bag)
            + Instruction.reactionSuffix(reaction)
    }
}
