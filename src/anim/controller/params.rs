//! Parameter storage for one playing controller: the values the server,
//! events and `/emote set` write, and the conditions transitions test.
//!
//! A trigger is armed by [`Parameters::fire`] and stays armed for
//! [`TRIGGER_TICKS`] steps, unless a transition consumes it first
//! ([`Parameters::consume`]). Ints are stored as ints; blends and weights
//! read any numeric parameter as `f32` ([`Parameters::number`]).

use crate::format::controller::{Condition, Parameter, ParameterKind, Test, TRIGGER_TICKS};

/// Why a parameter could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParameterError {
    /// No parameter has this name.
    #[error("unknown parameter `{name}`: the controller declares it in `parameters`, or it is a built-in")]
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// The value does not fit the parameter's type.
    #[error("parameter `{name}` is a {expected}, not a {given}: set it with a {expected} value")]
    WrongType {
        /// The parameter.
        name: String,
        /// Its type (`float`, `int`, `bool` or `trigger`).
        expected: &'static str,
        /// What was given.
        given: &'static str,
    },
}

/// The value of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParameterValue {
    /// A float parameter's value.
    Float(f32),
    /// An int parameter's value.
    Int(i32),
    /// A bool parameter's value.
    Bool(bool),
    /// A trigger: how many more steps it stays armed (0: not armed).
    Trigger {
        /// Steps left, at most [`TRIGGER_TICKS`].
        armed_ticks: u32,
    },
}

impl ParameterValue {
    fn type_name(self) -> &'static str {
        match self {
            ParameterValue::Float(_) => "float",
            ParameterValue::Int(_) => "int",
            ParameterValue::Bool(_) => "bool",
            ParameterValue::Trigger { .. } => "trigger",
        }
    }
}

/// The values of a controller's parameters, by index (the order of
/// [`ControllerFile::parameters`](crate::format::controller::ControllerFile::parameters)).
#[derive(Clone, Debug, PartialEq)]
pub struct Parameters {
    names: Vec<String>,
    values: Vec<ParameterValue>,
}

impl Parameters {
    /// Every parameter at its default, triggers unarmed.
    pub fn new(parameters: &[Parameter]) -> Self {
        Self {
            names: parameters.iter().map(|p| p.name.clone()).collect(),
            values: parameters
                .iter()
                .map(|p| match p.kind {
                    ParameterKind::Float { default } => ParameterValue::Float(default),
                    ParameterKind::Int { default } => ParameterValue::Int(default),
                    ParameterKind::Bool { default } => ParameterValue::Bool(default),
                    ParameterKind::Trigger => ParameterValue::Trigger { armed_ticks: 0 },
                })
                .collect(),
        }
    }

    /// Every parameter's name, in storage order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.names.iter().map(String::as_str)
    }

    /// The index of the parameter called `name`.
    pub fn index_of(&self, name: &str) -> Result<usize, ParameterError> {
        self.names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| ParameterError::Unknown {
                name: name.to_owned(),
            })
    }

    /// The value of parameter `index` (`None` when out of range).
    pub fn value(&self, index: usize) -> Option<ParameterValue> {
        self.values.get(index).copied()
    }

    /// Sets a value of the parameter's own type: a float for a float, an
    /// int for an int (a float is rounded to the nearest int), a bool for
    /// a bool. A trigger is set with [`Parameters::fire`].
    pub fn set(&mut self, name: &str, value: ParameterValue) -> Result<(), ParameterError> {
        let index = self.index_of(name)?;
        let slot = &mut self.values[index];
        *slot = match (*slot, value) {
            (ParameterValue::Float(_), ParameterValue::Float(v)) => ParameterValue::Float(v),
            (ParameterValue::Float(_), ParameterValue::Int(v)) => ParameterValue::Float(v as f32),
            (ParameterValue::Int(_), ParameterValue::Int(v)) => ParameterValue::Int(v),
            (ParameterValue::Int(_), ParameterValue::Float(v)) if v.is_finite() => {
                ParameterValue::Int(v.round() as i32)
            }
            (ParameterValue::Bool(_), ParameterValue::Bool(v)) => ParameterValue::Bool(v),
            (current, given) => {
                return Err(ParameterError::WrongType {
                    name: name.to_owned(),
                    expected: current.type_name(),
                    given: given.type_name(),
                })
            }
        };
        Ok(())
    }

    /// Arms the trigger `name` for [`TRIGGER_TICKS`] steps.
    pub fn fire(&mut self, name: &str) -> Result<(), ParameterError> {
        let index = self.index_of(name)?;
        match &mut self.values[index] {
            ParameterValue::Trigger { armed_ticks } => {
                *armed_ticks = TRIGGER_TICKS;
                Ok(())
            }
            other => Err(ParameterError::WrongType {
                name: name.to_owned(),
                expected: other.type_name(),
                given: "trigger",
            }),
        }
    }

    /// True when the trigger at `index` is armed.
    pub fn is_armed(&self, index: usize) -> bool {
        matches!(self.value(index), Some(ParameterValue::Trigger { armed_ticks }) if armed_ticks > 0)
    }

    /// A numeric parameter as `f32` (0 for anything else: validation
    /// makes sure blends, weights and speeds only name numbers).
    pub fn number(&self, index: usize) -> f32 {
        match self.value(index) {
            Some(ParameterValue::Float(v)) => v,
            Some(ParameterValue::Int(v)) => v as f32,
            _ => 0.0,
        }
    }

    /// True when `condition` holds now.
    pub fn holds(&self, condition: &Condition) -> bool {
        let index = condition.parameter;
        match condition.test {
            Test::IsTrue => self.value(index) == Some(ParameterValue::Bool(true)),
            Test::IsFalse => self.value(index) == Some(ParameterValue::Bool(false)),
            Test::Fired => self.is_armed(index),
            Test::Compare(op, operand) => op.holds(self.number(index), operand),
        }
    }

    /// Disarms every trigger `conditions` test: the transition that
    /// tested them fired.
    pub fn consume(&mut self, conditions: &[Condition]) {
        for condition in conditions {
            if condition.test == Test::Fired {
                if let Some(ParameterValue::Trigger { armed_ticks }) =
                    self.values.get_mut(condition.parameter)
                {
                    *armed_ticks = 0;
                }
            }
        }
    }

    /// Ends one step: every armed trigger has one step less to live.
    pub fn end_step(&mut self) {
        for value in &mut self.values {
            if let ParameterValue::Trigger { armed_ticks } = value {
                *armed_ticks = armed_ticks.saturating_sub(1);
            }
        }
    }
}
