import ReduxConsumer

/// Compares two values of unknown static type with their own `==`, when they have one.
///
/// Opens the `any Equatable` existential so that the concrete type's `==` runs, which lets the
/// differ skip equal subtrees without walking them.
///
/// - Returns: Whether the values are equal, or `nil` when their dynamic types differ or the type
///   is not `Equatable`.
func isEqual(_ lhs: Any, _ rhs: Any) -> Bool? {
    guard type(of: lhs) == type(of: rhs), let lhs = lhs as? any Equatable else {
        return nil
    }
    return lhs.isEqual(toValueOfUnknownType: rhs)
}

extension Equatable {
    fileprivate func isEqual(toValueOfUnknownType other: Any) -> Bool? {
        guard let other = other as? Self else {
            return nil
        }
        return self == other
    }
}

/// The `==` of `Element`, when it is `Equatable`, as a function on values of static type `Element`.
///
/// Found once per list instead of once per comparison, which would open an `any Equatable`
/// existential and cast the other value back for each pair.
func typedEquality<Element>(of _: Element.Type) -> ((Element, Element) -> Bool)? {
    guard let equatable = Element.self as? any Equatable.Type else {
        return nil
    }
    return equalityFunction(of: equatable) as? (Element, Element) -> Bool
}

private func equalityFunction<Value: Equatable>(of _: Value.Type) -> Any {
    { (lhs: Value, rhs: Value) in lhs == rhs }
}
