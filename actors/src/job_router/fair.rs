//! The round-robin order in which tenants get the next free worker. Pure, so the fairness rule is
//! tested on its own: the tenant after the last one served goes first, wrapping around, and a tenant
//! at its concurrency cap is skipped for this round.

use std::collections::HashMap;

/// Tenants with queued work, starting after `last_served` and wrapping around.
pub fn rotation(queued: &[i64], last_served: Option<i64>) -> Vec<i64> {
    let mut tenants = queued.to_vec();
    tenants.sort_unstable();
    tenants.dedup();
    let Some(last) = last_served else {
        return tenants;
    };
    let split = tenants.partition_point(|&tenant| tenant <= last);
    tenants.rotate_left(split);
    tenants
}

/// Of `order`, the tenants still under `cap` running jobs.
pub fn eligible(order: &[i64], running: &HashMap<i64, usize>, cap: usize) -> Vec<i64> {
    order
        .iter()
        .copied()
        .filter(|tenant| running.get(tenant).copied().unwrap_or(0) < cap)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_starts_after_the_last_served_tenant_and_wraps() {
        assert_eq!(rotation(&[3, 1, 2], None), vec![1, 2, 3]);
        assert_eq!(rotation(&[1, 2, 3], Some(1)), vec![2, 3, 1]);
        assert_eq!(rotation(&[1, 2, 3], Some(3)), vec![1, 2, 3]);
        // The last served tenant may have emptied its queue.
        assert_eq!(rotation(&[1, 3, 5], Some(4)), vec![5, 1, 3]);
        assert!(rotation(&[], Some(4)).is_empty());
    }

    #[test]
    fn tenants_at_their_cap_wait_for_the_next_round() {
        let running = HashMap::from([(1, 2), (2, 1)]);
        assert_eq!(eligible(&[1, 2, 3], &running, 2), vec![2, 3]);
    }

    #[test]
    fn a_tenant_with_a_long_backlog_alternates_with_a_newcomer() {
        // Simulate the router: one worker, tenant 1 has 100 jobs, tenant 2 arrives with 3.
        let mut backlog = HashMap::from([(1_i64, 100_u32), (2, 3)]);
        let mut last = None;
        let mut served = Vec::new();
        while backlog.values().any(|&n| n > 0) {
            let queued: Vec<i64> = backlog
                .iter()
                .filter(|(_, &n)| n > 0)
                .map(|(&t, _)| t)
                .collect();
            let next = rotation(&queued, last)[0];
            *backlog.get_mut(&next).unwrap() -= 1;
            last = Some(next);
            served.push(next);
        }
        let last_of_tenant_2 = served.iter().rposition(|&t| t == 2).unwrap();
        assert!(last_of_tenant_2 < 6, "{served:?}");
    }
}
