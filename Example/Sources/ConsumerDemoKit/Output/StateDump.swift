/// The lines of the `final state:` dump: one `name: value` line per stored property, indented.
func stateDump<State>(_ state: State, indent: String = "  ") -> [String] {
    let children = Mirror(reflecting: state).children
    guard !children.isEmpty else {
        return [indent + valueText(state)]
    }
    return children.map { child in
        "\(indent)\(child.label ?? "_"): \(valueText(child.value))"
    }
}
