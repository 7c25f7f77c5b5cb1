import ReduxConsumer

/// Walks two values side by side and collects a ``StateDiff/Change`` wherever they differ.
///
/// The walk is iterative, with an explicit stack of pending work, so deeply nested values such
/// as long recursive enums cannot overflow the call stack. Paths are kept as indices into an
/// arena of `(parent, component)` nodes, so going one level deeper costs O(1) instead of copying
/// the whole path; a ``StateDiff/Path`` is only built when a change is recorded.
///
/// Shortcuts keep the cost proportional to what changed: `Equatable` subtrees that are equal by
/// `==` are skipped after one comparison; arrays and ``ChunkedCollection``s are read as
/// ``ElementList``s, whose common start and end are trimmed by shared storage, identical bytes
/// or `==` before the rest is aligned, and only the elements that differ are ever boxed or
/// rendered. Without shortcuts (`usesShortcuts: false`) everything is walked by reflection alone;
/// the result is the same, which the tests check.
struct ReflectiveDiffer {
    private enum Pending {
        case compare(old: Any, new: Any, path: Int)
        case record(StateDiff.Change.Kind, old: Any?, new: Any?, path: Int)
    }

    private struct ObjectPair: Hashable {
        var old: ObjectIdentifier
        var new: ObjectIdentifier
    }

    private static let root = -1

    private let dumper = ValueDumper()
    private let usesShortcuts: Bool
    private var pathNodes: [(parent: Int, component: StateDiff.Path.Component)] = []
    private var comparedObjects: Set<ObjectPair> = []

    init(usesShortcuts: Bool = true) {
        self.usesShortcuts = usesShortcuts
    }

    mutating func changes(from old: Any, to new: Any) -> [StateDiff.Change] {
        var changes: [StateDiff.Change] = []
        var stack: [Pending] = [.compare(old: old, new: new, path: Self.root)]
        while let pending = stack.popLast() {
            switch pending {
            case .compare(let old, let new, let path):
                // Reversed so that the first child is popped, and reported, first.
                stack += compare(old, new, at: path).reversed()
            case .record(let kind, let old, let new, let path):
                changes.append(
                    StateDiff.Change(
                        path: self.path(at: path),
                        kind: kind,
                        oldValue: old.map { dumper.string(describing: $0) },
                        newValue: new.map { dumper.string(describing: $0) }
                    )
                )
            }
        }
        return changes
    }

    private mutating func compare(_ old: Any, _ new: Any, at path: Int) -> [Pending] {
        if type(of: old) is AnyClass, (old as AnyObject) === (new as AnyObject) {
            return []
        }
        guard type(of: old) == type(of: new) else {
            return [.record(.changed, old: old, new: new, path: path)]
        }
        if usesShortcuts, let oldElements = elementList(of: old), let newElements = elementList(of: new) {
            // Before `==`, which would read every element of two equal-length arrays.
            return compareElements(oldElements, newElements, at: path)
        }
        let equal = equality(old, new)
        if equal == true {
            return []
        }
        if equal == false, IdenticalBytes.areIdentical(opening: old, new) {
            // The same value though not `==` to itself, such as a `Double.nan` left alone.
            return []
        }
        // Arrays and chunked collections were opened above when shortcuts are on.
        switch (ValueShape(of: old, opensLists: false), ValueShape(of: new, opensLists: false)) {
        case (.optional(let oldWrapped), .optional(let newWrapped)):
            switch (oldWrapped, newWrapped) {
            case (nil, nil):
                return []
            case (nil, let newWrapped?):
                return [.record(.added, old: nil, new: newWrapped, path: path)]
            case (let oldWrapped?, nil):
                return [.record(.removed, old: oldWrapped, new: nil, path: path)]
            case (let oldWrapped?, let newWrapped?):
                return [.compare(old: oldWrapped, new: newWrapped, path: path)]
            }
        case (.enumCase(let oldName, let oldPayload?), .enumCase(let newName, let newPayload?)) where oldName == newName:
            return [.compare(old: oldPayload, new: newPayload, path: child(of: path, .case(oldName)))]
        case (.fields(_, let oldFields, let oldObject), .fields(_, let newFields, let newObject)):
            if let oldObject, let newObject {
                let pair = ObjectPair(old: ObjectIdentifier(oldObject), new: ObjectIdentifier(newObject))
                guard comparedObjects.insert(pair).inserted else {
                    return []
                }
            }
            return compareFields(oldFields, newFields, old: old, new: new, at: path)
        case (.tuple(let oldFields), .tuple(let newFields)):
            return compareFields(oldFields, newFields, old: old, new: new, at: path)
        case (.collection(let oldElements), .collection(let newElements)):
            return compareElements(oldElements, newElements, at: path)
        case (.dictionary(let oldEntries), .dictionary(let newEntries)):
            return compareEntries(oldEntries, newEntries, at: path)
        case (.set(let oldMembers), .set(let newMembers)):
            return compareMembers(oldMembers, newMembers, at: path)
        default:
            // Leaves, enum cases that differ or lack a payload, and shapes that do not line up.
            let differs = equal == false || dumper.string(describing: old) != dumper.string(describing: new)
            return differs ? [.record(.changed, old: old, new: new, path: path)] : []
        }
    }

    private mutating func compareFields(
        _ oldFields: [ValueShape.Field],
        _ newFields: [ValueShape.Field],
        old: Any,
        new: Any,
        at path: Int
    ) -> [Pending] {
        guard oldFields.map(\.label) == newFields.map(\.label) else {
            // Only custom mirrors can disagree on the fields of one type; compare as a whole.
            return [.record(.changed, old: old, new: new, path: path)]
        }
        return zip(oldFields, newFields).enumerated().map { offset, fields in
            let component = StateDiff.Path.Component.field(fields.0.label ?? String(offset))
            return .compare(old: fields.0.value, new: fields.1.value, path: child(of: path, component))
        }
    }

    /// Aligns two lists of elements: the common start and end are trimmed first (by shared
    /// storage, identical bytes or `==`, with shortcuts on), then only the middle is boxed,
    /// aligned and compared.
    private mutating func compareElements(
        _ oldList: any ElementList,
        _ newList: any ElementList,
        at path: Int
    ) -> [Pending] {
        var middle =
            (usesShortcuts ? oldList.differingMiddle(against: newList, trimsEnd: true) : nil)
            ?? ListMiddle(
                prefix: 0,
                suffix: 0,
                old: oldList.elements(in: 0..<oldList.count),
                new: newList.elements(in: 0..<newList.count)
            )
        var oldRenderings: [Int: String] = [:]
        var newRenderings: [Int: String] = [:]
        func match(_ oldIndex: Int, _ newIndex: Int) -> SequenceAlignment.Match {
            if let equal = middle.areEqual?(oldIndex, newIndex) ?? equality(middle.old[oldIndex], middle.new[newIndex])
            {
                return equal ? .exact : .different
            }
            // Not Equatable: align by rendering; aligned pairs are still compared afterwards.
            let oldRendering = oldRenderings[oldIndex] ?? dumper.string(describing: middle.old[oldIndex])
            let newRendering = newRenderings[newIndex] ?? dumper.string(describing: middle.new[newIndex])
            oldRenderings[oldIndex] = oldRendering
            newRenderings[newIndex] = newRendering
            return oldRendering == newRendering ? .similar : .different
        }
        if middle.areEqual == nil, middle.suffix > 0 {
            // Without a typed `==`, the common start was cut at the first pair whose bytes differ,
            // though it may go on by `==` or by rendering. Reflection alone would trim that whole
            // start first, and would then keep the trimmed end out of it; if the start reaches
            // across the shorter middle into the trimmed end, align without trimming the end.
            let shorter = min(middle.old.count, middle.new.count)
            var start = 0
            while start < shorter, match(start, start) != .different {
                start += 1
            }
            if start == shorter, let untrimmed = oldList.differingMiddle(against: newList, trimsEnd: false) {
                middle = untrimmed
            }
        }
        let edits = SequenceAlignment.edits(oldCount: middle.old.count, newCount: middle.new.count, match: match)
        let (prefix, old, new) = (middle.prefix, middle.old, middle.new)
        var pending: [Pending] = []
        for edit in edits {
            switch edit {
            case .same(_, _, isExact: true):
                break
            case .same(let oldIndex, let newIndex, isExact: false), .changed(let oldIndex, let newIndex):
                let elementPath = child(of: path, .index(prefix + newIndex))
                pending.append(.compare(old: old[oldIndex], new: new[newIndex], path: elementPath))
            case .removed(let oldIndex):
                let elementPath = child(of: path, .index(prefix + oldIndex))
                pending.append(.record(.removed, old: old[oldIndex], new: nil, path: elementPath))
            case .inserted(let newIndex):
                let elementPath = child(of: path, .index(prefix + newIndex))
                pending.append(.record(.added, old: nil, new: new[newIndex], path: elementPath))
            }
        }
        return pending
    }

    private mutating func compareEntries(
        _ old: [(key: Any, value: Any)],
        _ new: [(key: Any, value: Any)],
        at path: Int
    ) -> [Pending] {
        let oldByKey = Dictionary(old.map { (hashable($0.key), $0) }, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(new.map { (hashable($0.key), $0) }, uniquingKeysWith: { first, _ in first })
        var differing: [(rendering: String, key: Any, old: Any?, new: Any?)] = []
        for (key, oldEntry) in oldByKey {
            let newValue = newByKey[key]?.value
            if let newValue, equality(oldEntry.value, newValue) == true {
                continue
            }
            differing.append((dumper.string(describing: oldEntry.key), oldEntry.key, oldEntry.value, newValue))
        }
        for (key, newEntry) in newByKey where oldByKey[key] == nil {
            differing.append((dumper.string(describing: newEntry.key), newEntry.key, nil, newEntry.value))
        }
        // Keys whose renderings are cut alike (long or deep ones) are ordered by their whole
        // description, then by their values, rather than by the dictionary's hashing order. Those
        // descriptions are made once per such entry, not at every comparison of the sort (which
        // made them O(n log n) times, each as long as the key).
        var entriesByRendering: [String: Int] = [:]
        for entry in differing {
            entriesByRendering[entry.rendering, default: 0] += 1
        }
        let ordered = differing.map { entry in
            let tieBreak =
                entriesByRendering[entry.rendering, default: 0] > 1
                ? [
                    String(reflecting: entry.key), entry.old.map { String(reflecting: $0) } ?? "",
                    entry.new.map { String(reflecting: $0) } ?? "",
                ] : []
            return (entry: entry, tieBreak: tieBreak)
        }
        return ordered.sorted {
            $0.entry.rendering != $1.entry.rendering
                ? $0.entry.rendering < $1.entry.rendering : $0.tieBreak.lexicographicallyPrecedes($1.tieBreak)
        }.map(\.entry).map { entry in
            let path = child(of: path, .key(entry.rendering))
            switch (entry.old, entry.new) {
            case (let old?, let new?):
                return .compare(old: old, new: new, path: path)
            case (let old?, nil):
                return .record(.removed, old: old, new: nil, path: path)
            default:
                return .record(.added, old: nil, new: entry.new, path: path)
            }
        }
    }

    private func compareMembers(_ old: [Any], _ new: [Any], at path: Int) -> [Pending] {
        let oldByMember = Dictionary(old.map { (hashable($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newByMember = Dictionary(new.map { (hashable($0), $0) }, uniquingKeysWith: { first, _ in first })
        let removed = oldByMember.filter { newByMember[$0.key] == nil }.values
        let added = newByMember.filter { oldByMember[$0.key] == nil }.values
        return sortedByRendering(removed).map { .record(.removed, old: $0, new: nil, path: path) }
            + sortedByRendering(added).map { .record(.added, old: nil, new: $0, path: path) }
    }

    private func sortedByRendering(_ values: some Sequence<Any>) -> [Any] {
        values.map { (rendering: dumper.string(describing: $0), value: $0) }
            .sorted { $0.rendering < $1.rendering }
            .map(\.value)
    }

    /// Dictionary keys and set members are `Hashable`; the rendering is a fallback for custom
    /// mirrors that use this display style for something else.
    private func hashable(_ value: Any) -> AnyHashable {
        (value as? AnyHashable) ?? AnyHashable(dumper.string(describing: value))
    }

    /// The values' own `==`, when shortcuts are on and their type has one.
    private func equality(_ old: Any, _ new: Any) -> Bool? {
        usesShortcuts ? isEqual(old, new) : nil
    }

    private mutating func child(of parent: Int, _ component: StateDiff.Path.Component) -> Int {
        pathNodes.append((parent, component))
        return pathNodes.count - 1
    }

    private func path(at node: Int) -> StateDiff.Path {
        var components: [StateDiff.Path.Component] = []
        var node = node
        while pathNodes.indices.contains(node) {
            components.append(pathNodes[node].component)
            node = pathNodes[node].parent
        }
        return StateDiff.Path(components.reversed())
    }
}
