//! Plans and billing: `[plans]` and `[billing]`.

use serde::{Deserialize, Serialize};

/// A plan a tenant is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    Trial,
    Starter,
    Pro,
    Enterprise,
}

impl Plan {
    /// In order, lowest first.
    pub const ALL: [Plan; 4] = [Plan::Trial, Plan::Starter, Plan::Pro, Plan::Enterprise];

    pub const fn as_str(self) -> &'static str {
        match self {
            Plan::Trial => "trial",
            Plan::Starter => "starter",
            Plan::Pro => "pro",
            Plan::Enterprise => "enterprise",
        }
    }

    pub fn parse(name: &str) -> Option<Plan> {
        Plan::ALL.into_iter().find(|plan| plan.as_str() == name)
    }

    /// A stored plan name; an unknown one (a row written by hand) reads as the trial, the plan that
    /// allows least.
    pub fn from_stored(name: &str) -> Plan {
        Plan::parse(name).unwrap_or(Plan::Trial)
    }
}

impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One `[plans.<plan>]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSettings {
    /// Credits granted when a billing period opens (one credit per processed page).
    pub credits_per_period: i64,
    /// Days an export file is kept; the cleanup deletes it afterwards (a new export request writes
    /// it again).
    pub export_retention_days: u32,
    /// Most schedules one connector may have.
    pub max_schedules_per_connector: u32,
    /// Shortest interval between two runs of a schedule, in minutes; absent: no schedules on the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_schedule_interval_minutes: Option<u32>,
    /// Whether the plan may fine-tune models (`POST /v1/fine-tune`).
    pub fine_tune: bool,
    /// Days an uploaded or fetched original is kept after it was received; the destruction run deletes
    /// it afterwards (its document's record stays, and reprocessing it answers 410). 0: kept until
    /// the document is deleted. A tenant may choose fewer days.
    #[serde(default)]
    pub originals_retention_days: u32,
    /// Days an execution's stored result is kept; the same rules.
    #[serde(default)]
    pub results_retention_days: u32,
}

/// The `[plans]` section: one table per plan.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlansSettings {
    pub trial: PlanSettings,
    pub starter: PlanSettings,
    pub pro: PlanSettings,
    pub enterprise: PlanSettings,
}

impl PlansSettings {
    /// Every plan alike, granting `credits` per period and allowing nothing else (tests and
    /// benchmarks).
    pub fn uniform(credits: i64) -> PlansSettings {
        let plan = || PlanSettings {
            credits_per_period: credits,
            export_retention_days: 1,
            max_schedules_per_connector: 0,
            min_schedule_interval_minutes: None,
            fine_tune: false,
            originals_retention_days: 0,
            results_retention_days: 0,
        };
        PlansSettings {
            trial: plan(),
            starter: plan(),
            pro: plan(),
            enterprise: plan(),
        }
    }

    pub fn get(&self, plan: Plan) -> &PlanSettings {
        match plan {
            Plan::Trial => &self.trial,
            Plan::Starter => &self.starter,
            Plan::Pro => &self.pro,
            Plan::Enterprise => &self.enterprise,
        }
    }

    pub(super) fn get_mut(&mut self, plan: Plan) -> &mut PlanSettings {
        match plan {
            Plan::Trial => &mut self.trial,
            Plan::Starter => &mut self.starter,
            Plan::Pro => &mut self.pro,
            Plan::Enterprise => &mut self.enterprise,
        }
    }

    /// Days an export file of a tenant on `plan` (a stored name) is kept.
    pub fn retention_days(&self, plan: &str) -> u32 {
        self.get(Plan::from_stored(plan)).export_retention_days
    }

    pub fn validate(&self) -> Result<(), String> {
        for plan in Plan::ALL {
            let settings = self.get(plan);
            if settings.credits_per_period < 0 || settings.credits_per_period > 1_000_000_000_000 {
                return Err(format!(
                    "plans.{plan}.credits_per_period must be between 0 and 1000000000000, got {}",
                    settings.credits_per_period
                ));
            }
            if settings.export_retention_days == 0 || settings.export_retention_days > 3650 {
                return Err(format!(
                    "plans.{plan}.export_retention_days must be between 1 and 3650, got {}",
                    settings.export_retention_days
                ));
            }
            if settings.max_schedules_per_connector > 10_000 {
                return Err(format!(
                    "plans.{plan}.max_schedules_per_connector must be at most 10000, got {}",
                    settings.max_schedules_per_connector
                ));
            }
            if settings
                .min_schedule_interval_minutes
                .is_some_and(|minutes| minutes > 525_600)
            {
                return Err(format!(
                    "plans.{plan}.min_schedule_interval_minutes must be at most 525600 (a year)"
                ));
            }
        }
        Ok(())
    }
}

/// The `[billing]` section.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BillingSettings {
    /// When the scheduler runs the billing cycle (5 fields, UTC).
    pub cycle_cron: String,
    /// How often the clock looks whether a firing is due, in seconds.
    pub poll_interval_seconds: u64,
}

impl BillingSettings {
    pub fn schedule(&self) -> Result<crate::cron::Schedule, String> {
        crate::cron::Schedule::parse(&self.cycle_cron)
            .map_err(|error| format!("billing.cycle_cron: {error}"))
    }

    pub fn validate(&self) -> Result<(), String> {
        self.schedule()?;
        if self.poll_interval_seconds == 0 || self.poll_interval_seconds > 3600 {
            return Err(format!(
                "billing.poll_interval_seconds must be between 1 and 3600, got {}",
                self.poll_interval_seconds
            ));
        }
        Ok(())
    }
}
