/// What the delivery loop of a pass that fired one node reads of each attached group, kept by the
/// node beside its group, index for index: the group's call order and its typed half, so that a
/// group of one member is called without reading the ``MemberGroup`` object at all (one cache
/// line less per consumer when a thousand pages watch one global field).
///
/// Nothing here changes while the group is attached: its typed half is a `let` of the group, and
/// its order changes only while it is detached (see ``SelectionEngine/attach(_:order:state:)``).
@usableFromInline
struct DeliveryEntry {
    /// The group's typed half, unretained: the group holds it, and the pass's list of fired groups
    /// holds the group (see ``TypedGroup/deliverGroups(_:entries:state:drain:level:pass:engine:cursor:)``).
    @usableFromInline let typed: UnsafeRawPointer
    /// The typed half's class (a `TypedGroup` of the group's state and value types).
    @usableFromInline let type: ObjectIdentifier
    /// The group's ``MemberGroup/order``.
    @usableFromInline let order: UInt64

    init(_ group: MemberGroup) {
        typed = Self.address(of: group)
        type = ObjectIdentifier(Swift.type(of: group.members))
        order = group.order
    }

    /// The entry of a place `vacancy` fills (see ``Vacancy``), left by a group of call order
    /// `order`: the node's lists stay sorted by order, vacant places included.
    init(vacancy: MemberGroup, order: UInt64) {
        typed = Self.address(of: vacancy)
        type = ObjectIdentifier(Swift.type(of: vacancy.members))
        self.order = order
    }

    @usableFromInline
    static func address(of group: MemberGroup) -> UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: UInt(bitPattern: ObjectIdentifier(group.members))).unsafelyUnwrapped
    }

    /// Whether the entry still describes `group` (debug builds check it in every loop that reads
    /// both). A vacancy's entry keeps the order of the group that left (the vacancy's own is 0).
    @usableFromInline
    func describes(_ group: MemberGroup) -> Bool {
        typed == Self.address(of: group) && type == ObjectIdentifier(Swift.type(of: group.members))
            && (order == group.order || Vacancy.isVacant(type))
    }

    /// Whether the entry is that of a vacant place (see ``Vacancy``).
    var isVacant: Bool { Vacancy.isVacant(type) }
}
