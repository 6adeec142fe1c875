"""A real Redis Cluster on loopback ports: `primaries` redis-servers with --cluster-enabled yes and `replicas` of
each, joined with redis-cli --cluster create, ready once every running node says cluster_state:ok and every primary
that serves slots has its replicas online. A node timeout of 1 s fails a killed primary over within seconds."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from attestd_server import free_ports
from redis_server import RedisServer


class RedisCluster:
    def __init__(self, directory: Path, primaries: int = 3, replicas: int = 1):
        count = primaries * (1 + replicas)
        ports = free_ports(2 * count)
        self.replicas = replicas
        # The bus port is named: the default (port + 10000) may be taken, or past 65535. Replicas copy their primary
        # at once rather than waiting 5 s for others to share a diskless copy.
        self.nodes = [
            RedisServer(directory / f"node-{index}", ports[index], arguments=[
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-port", str(ports[count + index]), "--cluster-node-timeout", "1000",
                "--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0"])
            for index in range(count)
        ]

    def start(self) -> None:
        try:
            for node in self.nodes:
                node.start()
            created = self.cli(self.nodes[0], "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
                               "--cluster-replicas", str(self.replicas), "--cluster-yes")
            assert "All 16384 slots covered" in created, created
            self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()

    @property
    def seeds(self) -> list[dict]:
        return [{"host": "127.0.0.1", "port": node.port} for node in self.nodes[:2]]

    @staticmethod
    def cli(node: RedisServer, *arguments: str, timeout: float = 60) -> str:
        binary = shutil.which("redis-cli")
        assert binary, "redis-cli is missing: make test installs it (scripts/install-deps.sh)"
        return subprocess.run([binary, "-p", str(node.port), *arguments], capture_output=True, text=True,
                              timeout=timeout).stdout

    def running(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.process is not None and node.process.poll() is None]

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not self._ready():
            assert time.monotonic() < deadline, f"the Redis Cluster was not ready within {timeout}s:\n{self.table()}"
            time.sleep(0.1)

    def _ready(self) -> bool:
        for node in self.running():
            if "cluster_state:ok" not in self.cli(node, "CLUSTER", "INFO"):
                return False
            replication = self.cli(node, "INFO", "replication")
            if "role:master" in replication and self.serves_slots(node):
                online = [line for line in replication.splitlines() if line.startswith("slave") and "state=online" in line]
                if len(online) < self.replicas:
                    return False
        return True

    def table(self) -> str:
        """CLUSTER NODES as a running node sees it."""
        for node in self.running():
            answer = self.cli(node, "CLUSTER", "NODES")
            if answer.strip():
                return answer
        return ""

    def serves_slots(self, node: RedisServer) -> bool:
        mine = [line for line in self.cli(node, "CLUSTER", "NODES").splitlines() if "myself" in line]
        return bool(mine) and len(mine[0].split()) > 8

    def replicas_of(self, primary_id: str) -> set[str]:
        """The ids of the nodes that replicate `primary_id`."""
        return {fields[0] for fields in (line.split() for line in self.table().splitlines())
                if len(fields) > 3 and "slave" in fields[2] and fields[3] == primary_id}

    def replica_nodes(self) -> list[RedisServer]:
        """The running nodes that replicate a primary."""
        ports = {int(fields[1].split("@")[0].rsplit(":", 1)[1])
                 for fields in (line.split() for line in self.table().splitlines())
                 if len(fields) > 3 and "slave" in fields[2] and "fail" not in fields[2]}
        return [node for node in self.running() if node.port in ports]

    def wait_taken_over(self, replica_ids: set[str], timeout: float = 20.0) -> str:
        """Waits until one of `replica_ids` has won a failover, and answers its id: one reading of CLUSTER NODES
        shows it as a primary serving slots (a replica turns primary only once it has won the election). Only then may
        a killed primary without persistence start again: one that came back before would return empty, still the
        primary of its slots, and its replica would copy the empty data set."""
        deadline = time.monotonic() + timeout
        while True:
            promoted = replica_ids & {node_id for _, node_id, _ in self.primaries()}
            if promoted:
                return promoted.pop()
            assert time.monotonic() < deadline, f"no replica took over within {timeout}s:\n{self.table()}"
            time.sleep(0.1)

    def wait_replica_of(self, node_id: str, primary_id: str, timeout: float = 10.0) -> None:
        """Waits until CLUSTER NODES shows `node_id` replicating `primary_id` (a primary that lost its slots while
        it was down turns replica once the others tell it who serves them)."""
        deadline = time.monotonic() + timeout
        while True:
            line = next((fields for fields in (line.split() for line in self.table().splitlines())
                         if fields and fields[0] == node_id), [])
            if len(line) > 3 and "slave" in line[2] and line[3] == primary_id:
                return
            assert time.monotonic() < deadline, f"{node_id} does not replicate {primary_id}:\n{self.table()}"
            time.sleep(0.1)

    def primaries(self) -> list[tuple[RedisServer, str, int]]:
        """(node, id, slots served) of each live primary that serves slots."""
        found = []
        for line in self.table().splitlines():
            fields = line.split()
            if len(fields) <= 8 or "master" not in fields[2] or "fail" in fields[2]:
                continue
            port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
            slots = 0
            for part in fields[8:]:
                if part.startswith("["):
                    continue
                low, _, high = part.partition("-")
                slots += int(high or low) - int(low) + 1
            found.extend((node, fields[0], slots) for node in self.nodes if node.port == port)
        return found
