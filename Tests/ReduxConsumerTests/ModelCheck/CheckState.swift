import ReduxConsumer

/// The small state random programs run on: two integers, an optional string and an array, so that
/// selectors of every kind (plain values, optionals, collections, the whole state) have something
/// to watch, and small value ranges so that equal and close values come up often.
struct CheckState: Equatable, Sendable, CustomStringConvertible {
    var a = 0
    var b = 0
    var name: String?
    var list: [Int] = []

    var description: String {
        "{a \(a) b \(b) name \(name ?? "nil") list \(list)}"
    }
}

/// What random programs dispatch.
enum CheckAction: Action, Equatable, CustomStringConvertible {
    case setA(Int)
    case addA(Int)
    case setB(Int)
    case rename(String?)
    case append(Int)
    case dropFirst
    /// Changes nothing: closure subscribers still hear it, `.pulse` members still fire.
    case nothing

    var description: String {
        switch self {
        case .setA(let value): "setA(\(value))"
        case .addA(let value): "addA(\(value))"
        case .setB(let value): "setB(\(value))"
        case .rename(let name): "rename(\(name ?? "nil"))"
        case .append(let value): "append(\(value))"
        case .dropFirst: "dropFirst"
        case .nothing: "nothing"
        }
    }

    /// The reducer's rule for this action, shared by the store under test and the model (it is
    /// the program's code, not a rule of the library).
    func apply(to state: inout CheckState) {
        switch self {
        case .setA(let value): state.a = value
        case .addA(let value): state.a += value
        case .setB(let value): state.b = value
        case .rename(let name): state.name = name
        case .append(let value): state.list.append(value)
        case .dropFirst: if !state.list.isEmpty { state.list.removeFirst() }
        case .nothing: break
        }
    }
}

let checkReducer = Reducer<CheckState> { (state, action: CheckAction) in
    action.apply(to: &state)
}
