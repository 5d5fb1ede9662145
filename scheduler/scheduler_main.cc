#include "common/member_main.h"
#include "scheduler/scheduler.h"

int main(int argc, char** argv) {
  return strads::MemberMain<strads::Scheduler>(argc, argv, "scheduler");
}
