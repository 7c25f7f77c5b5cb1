extension Derived {
    /// The memo of this value in `cache`, made from the state at `state` if there is none (`nil`
    /// for a key path, which is read directly).
    @inlinable
    func memo(_ state: UnsafeMutablePointer<State>, cache: DerivationCache) -> AnyObject? {
        let definition = definition
        guard definition.hasInputs else { return nil }
        return cache.memo(for: definition) { definition.makeMemo(UnsafeMutableRawPointer(state), cache) }
    }

    /// The value for the state at `state`, computed at most once per pass of `cache`.
    ///
    /// - Parameter memo: The memo this read used last time, kept by the caller so it is looked up
    ///   once; set here on the first read, never changed after.
    @inlinable
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, memo: inout AnyObject?) -> Value {
        if memo == nil {
            memo = self.memo(state, cache: cache)
        }
        // Unretained: `memo` is the caller's (an evaluation's cell) for as long as the read lasts.
        return read(state, cache: cache, unretainedMemo: memo.map(Unmanaged.passUnretained))
    }

    /// The value for the state at `state`, given this value's memo in `cache` (see
    /// ``memo(_:cache:)``; `nil` for a key path).
    @inlinable
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, memo: AnyObject?) -> Value {
        withExtendedLifetime(memo) {
            read(state, cache: cache, unretainedMemo: memo.map(Unmanaged.passUnretained))
        }
    }

    /// The value of this input of another derived value for the state at `state`.
    ///
    /// - Parameters:
    ///   - inputMemos: The memos of the other value's inputs (see ``DerivedInputsMemo``).
    ///   - index: The index of this input.
    @inlinable @inline(__always)
    func read(
        _ state: UnsafeMutablePointer<State>, cache: DerivationCache, inputMemos: [Unmanaged<AnyObject>?], at index: Int
    ) -> Value {
        let offset = definition.storedOffset
        if offset >= 0 {
            return UnsafeRawPointer(state).load(fromByteOffset: offset, as: Value.self)
        }
        return read(state, cache: cache, unretainedMemo: inputMemos[index])
    }

    /// The value for the state at `state`, given this value's memo in `cache` (see
    /// ``memo(_:cache:)``; `nil` for a key path), unretained.
    ///
    /// Unretained, because whoever holds the memo (an evaluation's cell, or the memo of a derived
    /// value that reads this one) sets it once and outlives the read, so it cannot be released
    /// during it; retaining it would cost twice a plain retain, as the cache's weak reference moves
    /// its count to a side table.
    @inlinable @inline(__always)
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, unretainedMemo: Unmanaged<AnyObject>?)
        -> Value
    {
        guard let unretainedMemo else {
            // Only a key path has no memo (see `Definition`).
            return definition.selection.unsafelyUnwrapped.read(state)
        }
        return unretainedMemo._withUnsafeGuaranteedRef { memo in
            // Made by `definition.makeMemo`: a `DerivedInputsMemo<_, Value>` (checked in debug
            // builds).
            let memoised = unsafeDowncast(memo, to: DerivedMemo<Value>.self)
            if memoised.pass != cache.pass {
                definition.refresh(UnsafeMutableRawPointer(state), cache, memo)
            }
            return memoised.output
        }
    }
}
