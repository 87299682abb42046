// Package offline is the offline_metrics analysis: ranking metrics
// (precision, recall, nDCG, MAP, …) and rating errors computed from ranked
// lists or predictions against a ground truth, per user and per run.
package offline
