/// A value a member selected, in a form the model and the recorded events can compare and print.
enum Picked: Equatable, Sendable, CustomStringConvertible {
    case int(Int)
    case text(String?)
    case list([Int])
    case state(CheckState)

    var description: String {
        switch self {
        case .int(let value): "\(value)"
        case .text(let value): value.map { "\"\($0)\"" } ?? "nil"
        case .list(let value): "\(value)"
        case .state(let value): "\(value)"
        }
    }
}

/// Turns a selected value of any type the programs select into a ``Picked``.
protocol Pickable: Equatable, Sendable {
    var picked: Picked { get }
}

extension Int: Pickable {
    var picked: Picked { .int(self) }
}

extension Optional: Pickable where Wrapped == String {
    var picked: Picked { .text(self) }
}

extension Array: Pickable where Element == Int {
    var picked: Picked { .list(self) }
}

extension CheckState: Pickable {
    var picked: Picked { .state(self) }
}

/// What a member selects: key paths (shared evaluation in the library) and closure selectors,
/// on every field and on the whole state.
enum FieldSelector: CaseIterable, Sendable, CustomStringConvertible {
    case a
    case b
    case name
    case list
    case whole
    case sumByClosure
    case countByClosure
    case nameByClosure
    case wholeByClosure

    /// The selected value of `state`: the program's selector, run by the model.
    func pick(_ state: CheckState) -> Picked {
        switch self {
        case .a: .int(state.a)
        case .b: .int(state.b)
        case .name, .nameByClosure: .text(state.name)
        case .list: .list(state.list)
        case .whole, .wholeByClosure: .state(state)
        case .sumByClosure: .int(state.a + state.b)
        case .countByClosure: .int(state.list.count)
        }
    }

    var description: String {
        switch self {
        case .a: "\\.a"
        case .b: "\\.b"
        case .name: "\\.name"
        case .list: "\\.list"
        case .whole: "\\.self"
        case .sumByClosure: "{ $0.a + $0.b }"
        case .countByClosure: "{ $0.list.count }"
        case .nameByClosure: "{ $0.name }"
        case .wholeByClosure: "{ $0 }"
        }
    }
}

/// The `isEqual` a member may be given instead of `==`.
enum Equivalence: CaseIterable, Sendable, CustomStringConvertible {
    /// Close values count as equal: integers within 1, names equal ignoring case, lists of the
    /// same length, states with the same `a`.
    case close
    /// Every two values count as equal: the member never fires (except with `.pulse`).
    case always
    /// No two values count as equal: the member fires for every state it is fed.
    case never

    /// Whether `old` and `new` count as the same value.
    func holds(_ old: Picked, _ new: Picked) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .close:
            switch (old, new) {
            case (.int(let x), .int(let y)): return abs(x - y) <= 1
            case (.text(let x), .text(let y)): return x?.lowercased() == y?.lowercased()
            case (.list(let x), .list(let y)): return x.count == y.count
            case (.state(let x), .state(let y)): return x.a == y.a
            default: return false
            }
        }
    }

    var description: String {
        switch self {
        case .close: "close"
        case .always: "always"
        case .never: "never"
        }
    }
}
