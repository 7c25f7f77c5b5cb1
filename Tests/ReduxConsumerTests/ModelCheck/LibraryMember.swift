import ReduxConsumer

/// An `owner:` member's owner; the program holds the only strong reference.
final class MemberOwner: Sendable {
    let index: Int

    init(index: Int) {
        self.index = index
    }
}

/// How the run against the library hears a member's call: `old` (`nil` for the `{ new in }`
/// form), `new`, the state of the `{ old, new, state in }` form and the owner of the `owner:` form.
typealias MemberReport = @Sendable (_ old: Picked?, _ new: Picked, _ state: CheckState?, _ owner: MemberOwner?) -> Void

/// Where a member's value comes from, typed.
private enum Source<Value: Pickable> {
    case keyPath(any KeyPath<CheckState, Value> & Sendable)
    case closure(@Sendable (CheckState) -> Value)
}

extension StateConsumer<CheckState> {
    /// Adds the member `spec` describes with the matching public `add` overload.
    func add(_ spec: MemberSpec, owner: MemberOwner?, report: @escaping MemberReport) -> ConsumerToken {
        switch spec.selector {
        case .a: add(Source<Int>.keyPath(\.a), spec, owner, report)
        case .b: add(Source<Int>.keyPath(\.b), spec, owner, report)
        case .name: add(Source<String?>.keyPath(\.name), spec, owner, report)
        case .list: add(Source<[Int]>.keyPath(\.list), spec, owner, report)
        case .whole: add(Source<CheckState>.keyPath(\.self), spec, owner, report)
        case .sumByClosure: add(Source<Int>.closure { $0.a + $0.b }, spec, owner, report)
        case .countByClosure: add(Source<Int>.closure { $0.list.count }, spec, owner, report)
        case .nameByClosure: add(Source<String?>.closure { $0.name }, spec, owner, report)
        case .wholeByClosure: add(Source<CheckState>.closure { $0 }, spec, owner, report)
        }
    }

    private func add<Value: Pickable>(
        _ source: Source<Value>,
        _ spec: MemberSpec,
        _ owner: MemberOwner?,
        _ report: @escaping MemberReport
    ) -> ConsumerToken {
        let options = spec.options
        switch spec.shape {
        case .new:
            let callback: @Sendable (Value) -> Void = { new in report(nil, new.picked, nil, nil) }
            switch source {
            case .keyPath(let keyPath): return add(keyPath, options: options, callback)
            case .closure(let selector): return add(selector, options: options, callback)
            }
        case .oldNew:
            let callback: @Sendable (Value, Value) -> Void = { old, new in report(old.picked, new.picked, nil, nil) }
            if let equivalence = spec.equivalence {
                let isEqual: @Sendable (Value, Value) -> Bool = { equivalence.holds($0.picked, $1.picked) }
                switch source {
                case .keyPath(let keyPath): return add(keyPath, isEqual: isEqual, options: options, callback)
                case .closure(let selector): return add(selector, isEqual: isEqual, options: options, callback)
                }
            }
            switch source {
            case .keyPath(let keyPath): return add(keyPath, options: options, callback)
            case .closure(let selector): return add(selector, options: options, callback)
            }
        case .oldNewState:
            let callback: @Sendable (Value, Value, CheckState) -> Void = { old, new, state in
                report(old.picked, new.picked, state, nil)
            }
            switch source {
            case .keyPath(let keyPath): return add(keyPath, options: options, callback)
            case .closure(let selector): return add(selector, options: options, callback)
            }
        case .owner:
            guard let owner else { preconditionFailure("an owner: member needs its owner") }
            let callback: @Sendable (MemberOwner, Value, Value) -> Void = { owner, old, new in
                report(old.picked, new.picked, nil, owner)
            }
            switch source {
            case .keyPath(let keyPath): return add(keyPath, owner: owner, options: options, callback)
            case .closure(let selector): return add(selector, owner: owner, options: options, callback)
            }
        }
    }
}
