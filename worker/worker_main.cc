#include "common/member_main.h"
#include "worker/worker.h"

int main(int argc, char** argv) { return strads::MemberMain<strads::Worker>(argc, argv, "worker"); }
