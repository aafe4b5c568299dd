"""Following iDRAC Lifecycle Controller jobs (and the Redfish tasks that front them) to their end.

A job for a host component (BIOS, NIC firmware) stops at Scheduled until the host reboots; the iDRAC's own update
and every job after the reboot end Completed or Failed. ``follow`` polls until a job reaches a state in ``until``.
"""
import time

from .redfish import RedfishError

FINISHED = ("Completed", "Failed", "CompletedWithErrors")
FAILED = ("Failed", "CompletedWithErrors")
# Scheduled: waits for the host reboot; the other ones are iDRAC's intermediate states.
STAGED = ("Scheduled",)
JOBS = "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs"


def job_uri(location):
    """iDRAC answers with a task monitor (/TaskService/Tasks/JID_x) or a job URI; both name the same job."""
    return "%s/%s" % (JOBS, location.rstrip("/").rsplit("/", 1)[-1])


def follow(bmc, uri, until, timeout=1800, interval=5, sleep=time.sleep, clock=time.monotonic):
    """The job resource once its JobState is in ``until``. While the iDRAC restarts it may not answer: that is
    retried until ``timeout`` seconds, after which RedfishError says where the job was."""
    deadline = clock() + timeout
    last = "no answer"
    while True:
        try:
            job = bmc.get(uri)
            last = job.get("JobState", "?")
            if last in until:
                return job
        except RedfishError as exc:
            last = str(exc)
        if clock() >= deadline:
            raise RedfishError("%s: still %s after %d s" % (uri.rsplit("/", 1)[-1], last, timeout))
        sleep(interval)


def failure(component, job):
    """One line naming the component, the job and the iDRAC's message, or None when the job did not fail."""
    if job.get("JobState") not in FAILED:
        return None
    return "%s: iDRAC job %s %s: %s%s" % (component, job.get("Id"), job.get("JobState", "").lower(),
                                          job.get("Message", "no message"),
                                          " (%s)" % job["MessageId"] if job.get("MessageId") else "")


def scheduled_bios_job(bmc):
    """The BIOS configuration job waiting for a reboot, or None: while it exists iDRAC refuses new BIOS values."""
    for member in bmc.get(JOBS).get("Members", []):
        job = bmc.get(member["@odata.id"])
        if job.get("JobType") == "BIOSConfiguration" and job.get("JobState") in STAGED:
            return job
    return None
