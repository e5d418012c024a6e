/**
 * A Redis Cluster for tests: three masters with a replica each, six `redis-server` processes of
 * this test's own on free 127.0.0.1 ports (client port and cluster-bus port both chosen, so no
 * port+10000 collides), joined by `redis-cli --cluster create --cluster-replicas 1`. Without
 * persistence; every process is stopped on every path (a failed start kills what it started).
 * The node timeout is short so that a killed master's replica is promoted within seconds.
 */
import { type ChildProcess } from 'node:child_process';
/**
 * How long a node may be unreachable before the cluster fails it over (ms). Short, so that a
 * failover test is quick, but not so short that a busy machine's scheduling makes the nodes
 * fail each other over (a false failover loses the writes of a master that did not know yet).
 */
export declare const CLUSTER_NODE_TIMEOUT_MS = 3000;
export interface TestClusterNode {
  readonly port: number;
  readonly process: ChildProcess;
}
export interface TestCluster {
  /** Seed nodes, `127.0.0.1:<port>`, every node of the cluster. */
  readonly seeds: readonly string[];
  readonly nodes: readonly TestClusterNode[];
  /** A key prefix no other test uses. */
  prefix(): string;
  /** Runs one command on one node (by port) on a short-lived connection. */
  command(port: number, ...args: (string | number)[]): Promise<unknown>;
  /** The port of the master serving a key's slot now. */
  masterOf(key: string): Promise<number>;
  /** Kills a node with SIGKILL (a crash: no goodbye to the cluster). */
  kill(port: number): Promise<void>;
  /**
   * Moves the slot of `key` to the master on `toPort` as a resharding does (IMPORTING,
   * MIGRATING, MIGRATE a few keys at a time, SETSLOT NODE), running `between` after each batch.
   * The keys of `first` (of that slot) move first, in that order: a test that needs a slot's
   * keys split a given way between the two nodes names them.
   */
  moveSlot(key: string, toPort: number, between?: () => Promise<unknown>, first?: readonly string[]): Promise<void>;
  /** Resolves once the replicas of the master on `port` have every write it took so far. */
  waitForReplication(port: number): Promise<void>;
  /** Resolves once every live node reports `cluster_state:ok` and `port` is no master any more. */
  waitForFailover(port: number): Promise<void>;
  stop(): Promise<void>;
}
/** Starts the six nodes and creates the cluster; resolves once every node says the cluster is ok. */
export declare function startCluster(): Promise<TestCluster>;
