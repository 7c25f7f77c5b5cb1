import ReduxConsumer

/// A value as reflection sees it, classified once so that the differ and the dumper agree on
/// what its parts are.
enum ValueShape {
    /// A named part of a struct, class or tuple; `label` is `nil` for unlabeled tuple elements.
    struct Field {
        var label: String?
        var value: Any
    }

    /// A value without reflected parts: numbers, strings, booleans, closures, metatypes.
    case leaf
    case optional(Any?)
    /// An enum case; `name` is the case name, or the value's description for a case without
    /// payload (the standard library has no public way to get that case name).
    case enumCase(name: String, payload: Any?)
    /// A struct, a class (with `object` set, superclass fields first) or a value with a custom
    /// mirror that has no display style.
    case fields(typeName: String, fields: [Field], object: AnyObject?)
    case tuple([Field])
    /// An array, a ``ChunkedCollection``, or another collection read through its mirror.
    case collection(any ElementList)
    case dictionary([(key: Any, value: Any)])
    case set([Any])

    /// Classifies `value`.
    ///
    /// - Parameters:
    ///   - value: The value to classify.
    ///   - opensLists: Whether arrays and chunked collections are opened as ``ElementList``s
    ///     (cheap) rather than read through their mirror (every element boxed, and a chunked
    ///     collection shown as the struct it is).
    init(of value: Any, opensLists: Bool = true) {
        if opensLists, let list = elementList(of: value) {
            self = .collection(list)
            return
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            self = .optional(mirror.children.first?.value)
        case .enum:
            if let child = mirror.children.first {
                self = .enumCase(name: child.label ?? String(describing: value), payload: child.value)
            } else {
                self = .enumCase(name: String(describing: value), payload: nil)
            }
        case .tuple:
            self = .tuple(mirror.children.map { Field(label: Self.tupleLabel($0.label), value: $0.value) })
        case .collection:
            self = .collection(ChunkedElements(mirror.children.map(\.value)))
        // A `Set` or `Dictionary` is read directly (after the mirror, so that an optional one is
        // not unwrapped by the cast): its mirror boxes every member, and reflects on each entry
        // again for its key.
        case .set:
            self = .set((value as? any OpenableSet)?.members ?? mirror.children.map(\.value))
        case .dictionary:
            self = .dictionary((value as? any OpenableDictionary)?.entries ?? mirror.children.map(Self.entry))
        case .class:
            self = .fields(
                typeName: Self.typeName(of: value),
                fields: Self.classFields(of: mirror),
                object: type(of: value) is AnyClass ? value as AnyObject : nil
            )
        default:
            if mirror.displayStyle == nil && mirror.children.isEmpty {
                self = .leaf
            } else {
                let fields = mirror.children.map { Field(label: $0.label, value: $0.value) }
                // An object whose custom mirror calls it a struct can still be part of a cycle.
                let object = type(of: value) is AnyClass ? value as AnyObject : nil
                self = .fields(typeName: Self.typeName(of: value), fields: fields, object: object)
            }
        }
    }

    static func typeName(of value: Any) -> String {
        String(describing: type(of: value))
    }

    /// Mirror labels unlabeled tuple elements `.0`, `.1`; those become `nil`.
    private static func tupleLabel(_ label: String?) -> String? {
        guard let label, !label.hasPrefix(".") else {
            return nil
        }
        return label
    }

    /// Dictionary mirrors hold `(key:, value:)` tuples; custom dictionary-style mirrors may
    /// instead use the child label as the key.
    private static func entry(_ child: Mirror.Child) -> (key: Any, value: Any) {
        let parts = Array(Mirror(reflecting: child.value).children)
        if parts.count == 2, parts[0].label == "key", parts[1].label == "value" {
            return (parts[0].value, parts[1].value)
        }
        return (child.label ?? "", child.value)
    }

    private static func classFields(of mirror: Mirror) -> [Field] {
        var mirrors = [mirror]
        while let superclassMirror = mirrors.last?.superclassMirror {
            mirrors.append(superclassMirror)
        }
        return mirrors.reversed().flatMap { mirror in
            mirror.children.map { Field(label: $0.label, value: $0.value) }
        }
    }
}

/// Dictionaries, opened from `Any` to read their entries in their own order without a mirror.
private protocol OpenableDictionary {
    var entries: [(key: Any, value: Any)] { get }
}

extension Dictionary: OpenableDictionary {
    fileprivate var entries: [(key: Any, value: Any)] {
        map { (key: $0.key as Any, value: $0.value as Any) }
    }
}

/// Sets, opened from `Any` to read their members in their own order without a mirror.
private protocol OpenableSet {
    var members: [Any] { get }
}

extension Set: OpenableSet {
    fileprivate var members: [Any] {
        map { $0 as Any }
    }
}
