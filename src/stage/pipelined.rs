//! The runner of [`Pipelined`] stages: records stay in flight across polls and finish out of order.
//!
//! The batch runner ([`super::runner`]) awaits every record of a batch before it polls again, so a
//! batch lasts as long as its slowest record: on the web, one slow host per batch idles every other
//! connection. Here the runner keeps up to `runtime.max_in_flight` records of a member in flight,
//! polls for more whenever there is room, and finishes each record when its work is done.
//!
//! Offsets: per partition the runner knows which polled offsets are not finished yet, and stores the
//! lowest of them (or, with none pending, the offset after the last one polled). Everything below
//! a stored offset is finished and its outputs acknowledged, whatever order the work completed in:
//! the completion tracking of Confluent's Parallel Consumer, kept in memory only, so a crash replays
//! the records above the stored offset that had finished (at-least-once, as with the batch runner).
//!
//! Rebalance: records of a revoked partition are abandoned; their results are dropped when they
//! come in, because the partition's new owner replays them from the committed offset. Shutdown:
//! the runner stops polling, finishes what is in flight within `drain_timeout` (abandoning the
//! rest, which the next owner replays), stores what finished, commits and leaves the group.
//!
//! A record whose work panics goes to the dead-letter topic with the panic's message, and the
//! stage goes on: the work holds none of the stage's state ([`Pipelined`]), so nothing else is
//! left half-done, and replaying the record would only panic again, on every member that took it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::watch;
use tokio::task::{Id, JoinError, JoinSet};

use super::runner::{Membership, RunnerSettings, dead_letter, produce, take_revoked};
use super::{Emitter, Fault, Input, Pipelined, StageError, panic_message};
use crate::bus::{Consumer, Message, Producer};
use crate::metrics::StageMetrics;
use crate::record::Record;

/// One record in flight: where it came from and when it was polled.
struct Ticket {
    topic: Arc<str>,
    partition: i32,
    offset: i64,
    /// The partition's ownership it was polled under; a result from an earlier one is stale.
    generation: u64,
    polled: Instant,
}

/// What is pending on one owned partition.
struct Partition {
    generation: u64,
    /// Offsets polled and not yet finished (outputs acknowledged).
    pending: BTreeSet<i64>,
    /// The offset after the last one polled.
    next: i64,
    /// The offset last stored.
    stored: i64,
}

impl Partition {
    /// Everything below this is finished.
    fn finished_below(&self) -> i64 {
        self.pending.first().copied().unwrap_or(self.next)
    }
}

/// Completion tracking per partition.
#[derive(Default)]
struct Offsets {
    partitions: HashMap<(Arc<str>, i32), Partition>,
    generations: u64,
}

impl Offsets {
    /// Records that `offset` of `topic`/`partition` was polled; returns its ticket.
    fn polled(&mut self, topic: &Arc<str>, partition: i32, offset: i64) -> Ticket {
        let generations = &mut self.generations;
        let entry = self
            .partitions
            .entry((topic.clone(), partition))
            .or_insert_with(|| {
                *generations += 1;
                Partition {
                    generation: *generations,
                    pending: BTreeSet::new(),
                    next: offset,
                    stored: offset,
                }
            });
        entry.pending.insert(offset);
        entry.next = entry.next.max(offset + 1);
        Ticket {
            topic: topic.clone(),
            partition,
            offset,
            generation: entry.generation,
            polled: Instant::now(),
        }
    }

    /// Whether `ticket`'s partition is still owned as when it was polled.
    fn current(&self, ticket: &Ticket) -> bool {
        self.partitions
            .get(&(ticket.topic.clone(), ticket.partition))
            .is_some_and(|p| p.generation == ticket.generation)
    }

    /// `ticket`'s record is finished: its outputs are acknowledged.
    fn finished(&mut self, ticket: &Ticket) {
        if let Some(p) = self
            .partitions
            .get_mut(&(ticket.topic.clone(), ticket.partition))
            && p.generation == ticket.generation
        {
            p.pending.remove(&ticket.offset);
        }
    }

    fn revoke(&mut self, revoked: &[(Arc<str>, i32)]) {
        self.partitions.retain(|key, _| !revoked.contains(key));
    }

    /// Stores, per partition, the offset below which everything is finished.
    fn store(&mut self, consumer: &mut dyn Consumer) -> Result<(), crate::bus::BusError> {
        for ((topic, partition), p) in &mut self.partitions {
            let done = p.finished_below();
            if done > p.stored {
                consumer.store_offset(topic, *partition, done)?;
                p.stored = done;
            }
        }
        Ok(())
    }
}

/// What a job's task hands back: its task id and the work's result (or why the task ended without
/// one: a panic).
type Joined<D> = Result<(Id, D), JoinError>;

/// The records in flight by their job's task id, with the message each came from: what a panicking
/// job's record is dead-lettered with (a [`JoinError`] carries only the task's id).
type InFlight = HashMap<Id, (Ticket, Message)>;

/// Runs `stage` on `consumer` with up to `max_in_flight` records in flight, until `shutdown` turns
/// true; then finishes what is in flight and leaves the group.
pub async fn run_pipelined<S: Pipelined>(
    mut stage: S,
    mut consumer: Box<dyn Consumer>,
    producer: Arc<dyn Producer>,
    settings: RunnerSettings,
    max_in_flight: usize,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), StageError> {
    let metrics = StageMetrics::new(settings.stage);
    let mut out = settings.emitter();
    let mut offsets = Offsets::default();
    let mut running: JoinSet<S::Done> = JoinSet::new();
    let mut in_flight = InFlight::new();
    // Records whose outputs are in `out`, finished once those are acknowledged.
    let mut done: Vec<Ticket> = Vec::new();
    let mut membership = Membership::new();
    // A pipelined stage is built ready (its clients and models made by its constructor).
    crate::health::expect(settings.stage);
    crate::health::set(settings.stage, crate::health::Check::Started, true);
    tracing::info!(stage = settings.stage, max_in_flight, "stage started");

    let result = async {
        loop {
            if *shutdown.borrow() {
                break;
            }
            let room = max_in_flight.saturating_sub(running.len());
            // Both branches are cancel-safe: a poll that loses the race has taken no message.
            tokio::select! {
                biased;
                _ = shutdown.changed() => break,
                Some(joined) = running.join_next_with_id(), if !running.is_empty() => {
                    let mut finishing = Finishing {
                        stage: &mut stage,
                        in_flight: &mut in_flight,
                        offsets: &offsets,
                        out: &mut out,
                        done: &mut done,
                        metrics: &metrics,
                    };
                    finishing.finish(joined)?;
                    // Take every other result that is ready, so one round trip acknowledges them.
                    while let Some(joined) = running.try_join_next_with_id() {
                        finishing.finish(joined)?;
                    }
                }
                polled = consumer.poll(room.min(settings.batch_size), settings.poll_timeout), if room > 0 => {
                    let mut polled = polled?;
                    let revoked = take_revoked(consumer.as_mut(), &mut polled, &metrics);
                    if !revoked.is_empty() {
                        tracing::info!(stage = settings.stage, ?revoked, in_flight = running.len(), "partitions revoked; their records in flight are abandoned");
                        offsets.revoke(&revoked);
                    }
                    metrics.records_in(polled.len());
                    for message in polled {
                        let ticket = offsets.polled(&message.topic, message.partition, message.offset);
                        let record = match S::Input::from_bytes(&message.payload) {
                            Ok(record) => record,
                            Err(error) => {
                                let fault = Fault::Undecodable(&error);
                                dead_letter::<S::Input>(&mut out, &message, fault);
                                done.push(ticket);
                                continue;
                            }
                        };
                        let input = Input {
                            record,
                            topic: message.topic.clone(),
                            partition: message.partition,
                            offset: message.offset,
                        };
                        match stage.admit(input, &mut out) {
                            None => done.push(ticket),
                            Some(work) => {
                                metrics.records_in_flight(1);
                                let id = running.spawn(work).id();
                                in_flight.insert(id, (ticket, message));
                            }
                        }
                    }
                }
            }
            acknowledge(&mut out, &mut done, &mut offsets, producer.as_ref(), &metrics).await?;
            offsets.store(consumer.as_mut()).inspect_err(|_| metrics.error("offset"))?;
            membership.export(consumer.as_ref(), settings.stage, &metrics);
        }

        tracing::info!(stage = settings.stage, in_flight = running.len(), "draining");
        let deadline = tokio::time::Instant::now() + settings.drain_timeout;
        let mut finishing = Finishing { stage: &mut stage, in_flight: &mut in_flight, offsets: &offsets, out: &mut out, done: &mut done, metrics: &metrics };
        loop {
            match tokio::time::timeout_at(deadline, running.join_next_with_id()).await {
                Ok(Some(joined)) => finishing.finish(joined)?,
                Ok(None) => break,
                Err(_) => {
                    // What finished is kept below; the rest is replayed by the next owner.
                    tracing::warn!(stage = settings.stage, abandoned = running.len(), "drain timeout: records still in flight are abandoned");
                    break;
                }
            }
        }
        acknowledge(&mut out, &mut done, &mut offsets, producer.as_ref(), &metrics).await?;
        offsets.store(consumer.as_mut()).inspect_err(|_| metrics.error("offset"))?;
        Ok::<(), StageError>(())
    }
    .await;
    metrics.records_in_flight(-(running.len() as i64));
    if let Err(error) = result {
        // What is in flight is replayed from the committed offset by the next owner.
        running.abort_all();
        return Err(error);
    }
    consumer.close().await?;
    tracing::info!(stage = settings.stage, "stage stopped");
    Ok(())
}

/// What handing a finished job's result back needs, borrowed from the runner's loop.
struct Finishing<'a, S: Pipelined> {
    stage: &'a mut S,
    in_flight: &'a mut InFlight,
    offsets: &'a Offsets,
    out: &'a mut Emitter,
    done: &'a mut Vec<Ticket>,
    metrics: &'a StageMetrics,
}

impl<S: Pipelined> Finishing<'_, S> {
    /// Hands a finished job's result to the stage, unless its partition was revoked meanwhile. A
    /// job that panicked sends its record to the dead-letter topic.
    fn finish(&mut self, joined: Joined<S::Done>) -> Result<(), StageError> {
        self.metrics.records_in_flight(-1);
        let id = match &joined {
            Ok((id, _)) => *id,
            Err(error) => error.id(),
        };
        let Some((ticket, message)) = self.in_flight.remove(&id) else {
            return Ok(());
        };
        if !self.offsets.current(&ticket) {
            return Ok(());
        }
        match joined {
            Ok((_, result)) => {
                self.stage
                    .complete(result, self.out)
                    .inspect_err(|_| self.metrics.error("process"))?;
            }
            Err(error) => {
                let cause = match error.try_into_panic() {
                    Ok(panic) => panic_message(panic.as_ref()),
                    // Only `abort_all` cancels jobs, and only when the runner gives up.
                    Err(error) => error.to_string(),
                };
                dead_letter::<S::Input>(self.out, &message, Fault::Panicked(&cause));
            }
        }
        self.done.push(ticket);
        Ok(())
    }
}

/// Sends what finished records emitted, and once it is acknowledged marks them finished.
async fn acknowledge(
    out: &mut Emitter,
    done: &mut Vec<Ticket>,
    offsets: &mut Offsets,
    producer: &dyn Producer,
    metrics: &StageMetrics,
) -> Result<(), StageError> {
    produce(out, producer, metrics).await?;
    for ticket in done.drain(..) {
        metrics.record_wait(ticket.polled.elapsed());
        offsets.finished(&ticket);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_below_the_lowest_unfinished_offset() {
        let mut offsets = Offsets::default();
        let topic: Arc<str> = Arc::from("t");
        let tickets: Vec<Ticket> = (10..15).map(|o| offsets.polled(&topic, 0, o)).collect();
        let below = |o: &Offsets| o.partitions[&(topic.clone(), 0)].finished_below();
        assert_eq!(below(&offsets), 10);
        // 11 and 13 finish first: nothing below 10 is new.
        offsets.finished(&tickets[1]);
        offsets.finished(&tickets[3]);
        assert_eq!(below(&offsets), 10);
        offsets.finished(&tickets[0]);
        assert_eq!(below(&offsets), 12);
        offsets.finished(&tickets[2]);
        offsets.finished(&tickets[4]);
        assert_eq!(below(&offsets), 15);
    }

    #[test]
    fn results_of_a_revoked_partition_are_stale() {
        let mut offsets = Offsets::default();
        let topic: Arc<str> = Arc::from("t");
        let old = offsets.polled(&topic, 1, 5);
        offsets.revoke(&[(topic.clone(), 1)]);
        assert!(!offsets.current(&old));
        // Reassigned: a new generation, replaying from the committed offset.
        let new = offsets.polled(&topic, 1, 3);
        assert!(offsets.current(&new));
        assert!(!offsets.current(&old));
        offsets.finished(&old);
        assert_eq!(offsets.partitions[&(topic.clone(), 1)].finished_below(), 3);
    }
}
