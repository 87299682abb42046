// Package leaderboard ranks methods over datasets: the aggregate analysis
// (mean rank, means, Dolan–Moré curves, voting rules) and the stability
// analysis, which re-ranks perturbed matrices with the aggregate's scorer
// to show how much a leaderboard can be trusted.
package leaderboard
