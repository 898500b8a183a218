import Foundation
@_spi(Generated) import LucidSchema

/// Relationship types as snapshots spell them (`to_one aircraft`), and the entity behind each name a
/// target had.
extension ShapeBuilder {
    /// A relationship's type in snapshots and messages (`to_one aircraft`, `ordered to_many pilot`), naming the
    /// target as it was named at that version.
    static func relationshipDescription(target: String, toMany: Bool, ordered: Bool = false) -> String {
        PropertyType.relationship(entity: target, toMany: toMany, ordered: ordered).description
    }

    /// The entity (current name) that had `name` at some version, if exactly one did.
    func lineage(named name: String) -> String? {
        let owners = timelines.values.filter { timeline in
            timeline.entity.name == name || timeline.entity.versionHistory.contains { $0.previousName == name }
        }
        return owners.count == 1 ? owners[0].entity.name : nil
    }

    /// `frozen`, with each relationship type that names its target by another name of the same
    /// lineage than `derived` does spelled as `derived` spells it. Snapshots frozen before relationship
    /// types named the target as it was named at their version spell it by its newer name; both mean
    /// the same relationship.
    func aligningRelationshipTargets(of frozen: SchemaSnapshot, with derived: SchemaSnapshot) -> SchemaSnapshot {
        var result = frozen
        let derivedIndex = SnapshotIndex(derived)
        for (entityIndex, entity) in frozen.entities.enumerated() {
            guard derivedIndex.entity(named: entity.name) != nil else { continue }
            for (propertyIndex, property) in entity.properties.enumerated() {
                guard let now = derivedIndex.property(named: property.name, ofEntityNamed: entity.name), now.type != property.type,
                    let old = Self.relationshipTarget(property.type), let new = Self.relationshipTarget(now.type), old.toMany == new.toMany,
                    old.ordered == new.ordered,
                    let lineage = lineage(named: old.target), lineage == self.lineage(named: new.target)
                else { continue }
                result.entities[entityIndex].properties[propertyIndex].type = now.type
            }
        }
        return result
    }

    /// The target and association of a snapshot's relationship type description (`ordered to_many pilot`;
    /// snapshots written before ordered relationships existed say `to_many pilot`, which is unordered).
    static func relationshipTarget(_ description: String) -> (target: String, toMany: Bool, ordered: Bool)? {
        for (prefix, toMany, ordered) in [("to_one ", false, false), ("to_many ", true, false), ("ordered to_many ", true, true)]
        where description.hasPrefix(prefix) {
            return (String(description.dropFirst(prefix.count)), toMany, ordered)
        }
        return nil
    }
}
