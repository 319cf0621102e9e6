// Package serve answers the questions of package query over HTTP: a JSON
// endpoint per question (/api/QUESTION, its parameters those of the
// command line's flags without the dashes), its OpenAPI description
// (/openapi.json), /healthz, Prometheus metrics (/metrics) and a web page
// (/) for exploring a collection, all from one process.
//
// The questions themselves, their parameters and how an answer is
// written, come from the caller (Question): the command tweetindex serve
// hands over those of tweetindex query, so that the API's answers and
// error messages are the command's. This package owns the HTTP side: the
// store or keyspace and its renewal (Source), limits and timeouts, the
// status of an answer, metrics, the description and the page.
package serve
